/**
 * The shape of a Go type layout table: what go-spew's reflection sees of a Go type, recorded once so that
 * {@link ./spew-format.ts} can print a JSON object the way `spew.Sprintf("%#v")` prints the Go struct it
 * decodes into. Keys are Go type names as `reflect.Type.String()` spells them (`v1.PodSpec`, `*int64`,
 * `[]v1.Container`, `map[string]string`, `v1.ResourceList`).
 */

/** One field of a Go struct, in declaration order. */
export interface GoField {
  /** The Go field name, which spew prints (`Containers`). */
  readonly name: string;
  /** The JSON name from the `json` tag; absent for untagged (unexported) fields, read by Go name. */
  readonly json?: string;
  /** True for `json:",inline"` embedded structs, whose fields sit in the parent JSON object. */
  readonly inline?: boolean;
  /** The field's Go type name, a key of the table. */
  readonly type: string;
}

/** One Go type: its reflect.Kind and what it is made of. */
export interface GoType {
  /** reflect.Kind's name: struct, ptr, slice, map, string, bool, int32, int64, uint64, … */
  readonly kind: string;
  /** The element type of a ptr, slice or map. */
  readonly elem?: string;
  /** The key type of a map. */
  readonly key?: string;
  /** The fields of a struct, in declaration order. */
  readonly fields?: readonly GoField[];
}

/** Go type name → layout. */
export type GoTypeTable = Readonly<Record<string, GoType>>;
