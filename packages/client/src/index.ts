export * from "./api-types.js";
export * from "./commitments.js";
export * from "./errors.js";
export * from "./http-client.js";
export * from "./keys.js";
export * from "./operations.js";
export * from "./subscriber.js";
export * from "./wallet.js";
