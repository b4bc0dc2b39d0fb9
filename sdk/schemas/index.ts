/** Every wire schema of the API, one module per resource. */
export * from "./common";
/** The group name rule, one of the spec's rules (../rules), where callers have always found it. */
export { GROUP_NAME_PATTERN } from "../rules";
export * from "./groups";
export * from "./identities";
export * from "./roles";
export * from "./role-bindings";
export * from "./identity-providers";
export * from "./group-invites";
export * from "./account-associations";
export * from "./repos";
export * from "./tags";
export * from "./advisories";
export * from "./v1";
export * from "./sts";
