/// Where the kit gets a `Backend`: factory functions, one per store (and the stack a run uses),
/// each returning `any Backend`, so nothing outside this module names a store.
package enum Backends {}
