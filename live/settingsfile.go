package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"github.com/loopgate/loopgate/internal/atomicfile"
)

// How hook install treats the agent's settings file as a file: what it
// follows, what it refuses, and what it never writes through.

// settingsTarget is the file install edits for path: path itself, or,
// when path is a symbolic link (settings kept in a dotfiles repository),
// the file the link leads to, which is edited in place of the link so
// that the link stays. exists is false for a file still to be made. A
// link that leads nowhere, anything but a regular file, and a file
// without its owner's write permission (0444: protected on purpose) are
// refused.
func settingsTarget(path string) (target string, exists bool, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, err
	}
	target = path
	if fi.Mode()&os.ModeSymlink != 0 {
		if target, err = filepath.EvalSymlinks(path); err != nil {
			dest, _ := os.Readlink(path)
			return "", false, fmt.Errorf("%s is a symbolic link to %s, which cannot be followed (%v): fix the link or remove it", path, dest, errors.Unwrap(err))
		}
		if fi, err = os.Stat(target); err != nil {
			return "", false, err
		}
	}
	switch {
	case !fi.Mode().IsRegular():
		return "", false, fmt.Errorf("%s is %s, not a settings file", target, fileKind(fi.Mode()))
	case fi.Mode().Perm()&0o200 == 0:
		return "", false, fmt.Errorf("%s is read-only (mode %04o): loopgate does not override a file's protection; make it writable (chmod u+w) to install, or add the hooks by hand", target, fi.Mode().Perm())
	}
	return target, true, nil
}

// writeBackup writes the settings' old content to backup, replacing
// whatever is there (a link included) by a new file, never writing
// through a link planted at backup.
func writeBackup(backup string, old []byte) error {
	if fi, err := os.Lstat(backup); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory: the settings cannot be backed up there", backup)
	}
	return atomicfile.Write(backup, old, "."+filepath.Base(backup)+".loopgate-*", 0o600)
}

// lineError is a settings file's problem at a line.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// jsonDuplicateKey finds the first key given twice in one object of a
// JSON document: agents read the last of them (JSON.parse, Python's
// json), and loopgate would edit the first, leaving its hook inactive.
func jsonDuplicateKey(data []byte) error {
	type frame struct {
		obj, wantKey bool
		keys         map[string]bool
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil // the end, or an error the parser reports
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if s, ok := tok.(string); ok && top != nil && top.obj && top.wantKey {
			if top.keys[s] {
				line := 1 + bytes.Count(data[:dec.InputOffset()], []byte{'\n'})
				return &lineError{line, fmt.Sprintf("key %q is given twice in one object (the agent reads the last one, loopgate would edit the first): keep one", s)}
			}
			top.keys[s] = true
			top.wantKey = false
			continue
		}
		if top != nil && top.obj {
			top.wantKey = true
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{obj: d == '{', wantKey: true, keys: map[string]bool{}})
		}
	}
}

// yamlOneDocument decodes a settings file that must be one YAML document
// whose mappings give each key once: a second document would be dropped
// by the edit, and of a key given twice the agent reads the last while
// the edit would go into the first.
func yamlOneDocument(data []byte, doc *yaml.Node) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("not YAML: %v", err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return &lineError{next.Line, "a second YAML document: a settings file is one document (loopgate would drop the rest)"}
	} else if !errors.Is(err, io.EOF) {
		return fmt.Errorf("not YAML: %v", err)
	}
	return yamlDuplicateKey(doc)
}

func yamlDuplicateKey(n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.Value == "<<" {
				continue
			}
			if seen[k.Value] {
				return &lineError{k.Line, fmt.Sprintf("key %q is given twice in one mapping (the agent reads the last one, loopgate would edit the first): keep one", k.Value)}
			}
			seen[k.Value] = true
		}
	}
	for _, c := range n.Content {
		if err := yamlDuplicateKey(c); err != nil {
			return err
		}
	}
	return nil
}
