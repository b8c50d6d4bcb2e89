import { mergeCalls, type ApiKeyUsageLog, type OperationCalls } from '@pets/domain'
import * as TE from 'fp-ts/lib/TaskEither.js'

/** A usage log in the process's memory: each process counts only its own calls, until it ends. */
export const createMemoryApiKeyUsageLog = (): ApiKeyUsageLog => {
  let counted: ReadonlyArray<OperationCalls> = []
  return {
    add: (entries) =>
      TE.fromIO(() => {
        counted = mergeCalls([...counted, ...entries])
      }),
    list: () => TE.fromIO(() => counted),
  }
}
