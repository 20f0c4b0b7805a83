// Package yamlstrict reads loopgate's own YAML files, rules files and gate
// files, strictly and alike: one document, a bounded size once aliases are
// expanded (size.go), and every mistake one plain sentence at "FILE:LINE",
// with yaml.v3's line numbers counted from 1 whichever part of yaml.v3
// found the error. Both loaders word their mistakes with its helpers
// (unknown keys with "did you mean", repeated keys, the kind of a value),
// so that a mistake reads the same in either file.
//
// It imports only yaml.v3 and the standard library.
package yamlstrict
