// Command pod-template-hash is kubeloom's oracle for src/controllers/hash: it runs kube-controller-manager
// v1.24's own code (k8s.io/kubernetes/pkg/controller.ComputeHash, vendored by liteKube) over the corpus in
// src/controllers/hash/testdata/pod-template-hashes.json and prints the Go layout of v1.PodTemplateSpec that
// src/controllers/hash/pod-template-spec-go-types.ts records.
//
// It is built inside the liteKube module (so the vendored packages resolve, offline, -mod=vendor) by
// scripts/oracles/pod-template-hash/run.sh, which `npm run oracle:pod-template-hash` calls.
//
//	pod-template-hash corpus CORPUS.json   rewrites each entry's "hash" (inputs kept as they are)
//	pod-template-hash check CORPUS.json    exits 1 when an entry's "hash" differs from ComputeHash
//	pod-template-hash go-types OUT.ts      writes the Go type table
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// entry is one corpus case, its keys in the committed file's order.
type entry struct {
	Name           string          `json:"name"`
	Template       json.RawMessage `json:"template"`
	CollisionCount *int32          `json:"collisionCount,omitempty"`
	Hash           string          `json:"hash"`
	Sent           json.RawMessage `json:"sent,omitempty"`
}

// hashOf decodes the template as the API server's JSON decoder does, round-trips it through protobuf (what
// kube-controller-manager's informers decode, so empty lists and maps become nil) and hashes it.
func hashOf(raw json.RawMessage, collisionCount *int32) (string, error) {
	var t v1.PodTemplateSpec
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", err
	}
	data, err := t.Marshal()
	if err != nil {
		return "", err
	}
	var decoded v1.PodTemplateSpec
	if err := decoded.Unmarshal(data); err != nil {
		return "", err
	}
	return controller.ComputeHash(&decoded, collisionCount), nil
}

func readCorpus(path string) []entry {
	data, err := os.ReadFile(path)
	must(err)
	var entries []entry
	must(json.Unmarshal(data, &entries))
	return entries
}

// writeJSON writes v as the corpus files are committed: one-space indentation, no HTML escaping, no
// trailing newline.
func writeJSON(path string, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	must(enc.Encode(v))
	must(os.WriteFile(path, bytes.TrimSuffix(buf.Bytes(), []byte("\n")), 0o644))
}

// goType is one row of the TypeScript table (src/controllers/hash/go-type-table.ts's GoType).
type goType struct {
	Kind   string    `json:"kind"`
	Elem   string    `json:"elem,omitempty"`
	Key    string    `json:"key,omitempty"`
	Fields []goField `json:"fields,omitempty"`
}

type goField struct {
	Name   string `json:"name"`
	JSON   string `json:"json,omitempty"`
	Inline bool   `json:"inline,omitempty"`
	Type   string `json:"type"`
}

// opaque types are not walked: go-spew only ever prints a nil pointer to them in a hashed template
// (spew-format.ts refuses the values that would reach them).
var opaque = map[string]bool{"inf.Dec": true, "time.Location": true}

func walk(t reflect.Type, table map[string]goType) {
	name := t.String()
	if _, seen := table[name]; seen || opaque[name] {
		return
	}
	row := goType{Kind: t.Kind().String()}
	table[name] = row
	switch t.Kind() {
	case reflect.Ptr, reflect.Slice:
		row.Elem = t.Elem().String()
		walk(t.Elem(), table)
	case reflect.Map:
		row.Elem, row.Key = t.Elem().String(), t.Key().String()
		walk(t.Key(), table)
		walk(t.Elem(), table)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			field := goField{Name: f.Name, Type: f.Type.String()}
			tag, hasTag := f.Tag.Lookup("json")
			jsonName, opts, _ := strings.Cut(tag, ",")
			switch {
			case hasTag && jsonName == "" && strings.Contains(","+opts+",", ",inline,"):
				field.Inline = true
			case hasTag:
				field.JSON = jsonName
			}
			row.Fields = append(row.Fields, field)
			if field.JSON != "-" {
				walk(f.Type, table)
			}
		}
	}
	table[name] = row
}

func writeGoTypes(path string) {
	table := map[string]goType{}
	walk(reflect.TypeOf(v1.PodTemplateSpec{}), table)
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(`// Generated from the Go type k8s.io/api/core/v1.PodTemplateSpec (Kubernetes v1.24, vendored by liteKube) by a
// reflect walk: every struct reachable from it, its fields in declaration order with Go name, JSON name and
// Go type (as reflect.Type.String() spells it). Do not edit by hand; see go-type-table.ts for the shape.

import type { GoTypeTable } from './go-type-table.ts';

/** The Go layout of ` + "`v1.PodTemplateSpec`" + ` and everything it reaches (kube-controller-manager v1.24). */
export const podTemplateSpecGoTypes: GoTypeTable = {
`)
	for _, n := range names {
		row, err := json.Marshal(table[n])
		must(err)
		key, err := json.Marshal(n)
		must(err)
		fmt.Fprintf(&b, "  %s: %s,\n", key, row)
	}
	b.WriteString("};\n")
	must(os.WriteFile(path, []byte(b.String()), 0o644))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "pod-template-hash:", err)
		os.Exit(2)
	}
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: pod-template-hash corpus|check CORPUS.json | go-types OUT.ts")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "corpus":
		entries := readCorpus(os.Args[2])
		for i := range entries {
			h, err := hashOf(entries[i].Template, entries[i].CollisionCount)
			must(err)
			entries[i].Hash = h
		}
		writeJSON(os.Args[2], entries)
	case "check":
		failed := 0
		for _, e := range readCorpus(os.Args[2]) {
			h, err := hashOf(e.Template, e.CollisionCount)
			must(err)
			if h != e.Hash {
				fmt.Printf("%s: recorded %s, ComputeHash %s\n", e.Name, e.Hash, h)
				failed++
			}
		}
		if failed > 0 {
			os.Exit(1)
		}
	case "go-types":
		writeGoTypes(os.Args[2])
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", os.Args[1])
		os.Exit(2)
	}
}
