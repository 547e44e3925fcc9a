/** A mistake of the caller (arguments, files, a policy that does not compile): printed as it is, exit 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
