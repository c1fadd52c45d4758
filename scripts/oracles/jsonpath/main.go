// Command jsonpath is kubeloom's oracle for src/util/jsonpath: it computes each printer-column cell of
// src/util/jsonpath/testdata/printer-column-cells.json with client-go v1.24's util/jsonpath (vendored by
// liteKube) the way apiextensions-apiserver's table convertor does for a string column, and rewrites the
// file's "cell" values (paths and objects kept as they are).
//
// Built inside the liteKube module by scripts/oracles/jsonpath/run.sh (`npm run oracle:jsonpath`).
//
//	jsonpath CELLS.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/util/jsonpath"
)

// entry is one case, its keys in the committed file's order.
type entry struct {
	Path   string          `json:"path"`
	Object json.RawMessage `json:"object"`
	Cell   *string         `json:"cell"`
}

// cell is tableconvertor.convertor's cell of a string column: the path as `{<path>}` with missing keys
// allowed, the first value found printed by PrintResults; nil when the path does not parse, finds
// nothing or fails.
func cell(path string, object json.RawMessage) (*string, error) {
	// The object as unstructured decodes it: whole numbers int64, others float64.
	var content interface{}
	if err := utiljson.Unmarshal(object, &content); err != nil {
		return nil, err
	}
	p := jsonpath.New("column")
	if err := p.Parse(fmt.Sprintf("{%s}", path)); err != nil {
		return nil, nil
	}
	p.AllowMissingKeys(true)
	results, err := p.FindResults(content)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil, nil
	}
	value := results[0][0].Interface()
	var buf bytes.Buffer
	if err := p.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
		return nil, nil
	}
	s := buf.String()
	return &s, nil
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: jsonpath CELLS.json")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	must(err)
	var entries []entry
	must(json.Unmarshal(data, &entries))
	for i := range entries {
		c, err := cell(entries[i].Path, entries[i].Object)
		must(err)
		entries[i].Cell = c
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	must(enc.Encode(entries))
	must(os.WriteFile(os.Args[1], buf.Bytes(), 0o644))
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "jsonpath:", err)
		os.Exit(2)
	}
}
