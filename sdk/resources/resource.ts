/**
 * Base of every resource: a handle on the shared request pipeline. Resources build paths with `resourcePath`,
 * never by concatenation.
 *
 * May import: ../core.
 */
import type { Core } from "../core";

export abstract class APIResource {
  constructor(protected readonly core: Core) {}
}
