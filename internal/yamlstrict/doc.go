// Package yamlstrict reads loopgate's own YAML files, rules files and gate
// files, strictly and alike: one document, a bounded size once aliases are
// expanded (size.go), and every mistake one plain sentence at "FILE:LINE",
// with yaml.v3's line numbers counted from 1 whichever part of yaml.v3
// found the error. Both loaders walk their mappings with Entries (keys
// refused in one order: an alias where the file refuses them, not a word,
// repeated, unknown with "did you mean") and word their other mistakes
// with its helpers (the kind of a value, a value that is not a mapping),
// so that a mistake reads the same in either file.
//
// It imports only yaml.v3 and the standard library.
package yamlstrict
