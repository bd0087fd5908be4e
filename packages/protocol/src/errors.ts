/** Error codes of the node API (compat.md §7). Every error a client can see carries one of these. */
export enum ErrorCode {
  SUCCESS = 0,
  INTERNAL = 1,
  INVALID_PARAMETER = 2,
  ALREADY_EXISTS = 3,
  NOT_EXIST = 4,
  TX_TIMEOUT = 5,
  ACCESS_DENIED = 6,
  MATH_OVERFLOW = 7,
  INVALID_PUBLIC_KEY = 90,
  INVALID_PRIVATE_KEY = 91,
  SIGNATURE_WEIGHT_NOT_ENOUGH = 93,
  INVALID_ADDRESS = 94,
  MISSING_OPERATIONS = 97,
  TOO_MANY_OPERATIONS = 98,
  BAD_NONCE = 99,
  LOW_RESERVE = 100,
  SOURCE_EQUALS_DESTINATION = 101,
  DESTINATION_EXISTS = 102,
  ACCOUNT_NOT_EXIST = 103,
  INIT_BALANCE_BELOW_RESERVE = 106,
  FEE_NOT_ENOUGH = 111,
  FEE_INVALID = 112,
  TX_POOL_FULL = 114,
  WEIGHT_NOT_VALID = 120,
  THRESHOLD_NOT_VALID = 121,
  METADATA_VERSION_MISMATCH = 144,
  TX_TOO_BIG = 146,
  CONTRACT_EXECUTE_FAIL = 151,
  CONTRACT_SYNTAX_ERROR = 152,
  CONTRACT_TOO_MANY_RECURSION = 153,
  CONTRACT_TOO_MANY_TRANSACTIONS = 154,
  CONTRACT_LIMIT_EXCEEDED = 155,
  CONTRACT_INVALID = 156,
  POOL_INSERT_REFUSED = 160,
  DOMAIN_NOT_EXIST = 170,
}

/** An error with the code a client sees; `message` becomes `error_desc`. */
export class ChainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ChainError";
  }
}

/** Throws ChainError(code, message) unless the condition holds. */
export function check(condition: unknown, code: ErrorCode, message: string): asserts condition {
  if (!condition) throw new ChainError(code, message);
}
