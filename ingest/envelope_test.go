package ingest

import "testing"

func TestCodexEnvelope(t *testing.T) {
	cases := []struct{ in, output, envelope string }{
		{"Exit code: 0\nWall time: 1.4 seconds\nOutput:\nhello\n", "Exit code: 0\nOutput:\nhello\n", "Wall time: 1.4 seconds"},
		{"Exit code: 1\nWall time: 0 seconds\nTotal output lines: 900\nOutput:\nx", "Exit code: 1\nTotal output lines: 900\nOutput:\nx", "Wall time: 0 seconds"},
		{"Exit code: 0\nWall time: 0.2 seconds\nOutput:", "Exit code: 0\nOutput:", "Wall time: 0.2 seconds"},
		{"Chunk ID: 1a2b3c\nWall time: 10.0021 seconds\nProcess running with session ID 4242\nOriginal token count: 3\nOutput:\nbuilding\n",
			"Process running with session ID\nOriginal token count: 3\nOutput:\nbuilding\n",
			"Chunk ID: 1a2b3c\nWall time: 10.0021 seconds\nProcess running with session ID 4242"},
		{"Command: /bin/sh -lc ls\nChunk ID: ff00aa\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 2\nOutput:\na\nb\n",
			"Command: /bin/sh -lc ls\nProcess exited with code 0\nOriginal token count: 2\nOutput:\na\nb\n",
			"Chunk ID: ff00aa\nWall time: 0.0000 seconds"},
		// A command with a newline in it runs on over several lines.
		{"Command: /bin/zsh -lc \"python - <<'PY'\nprint(1)\nPY\"\nChunk ID: 0a1b2c\nWall time: 0.1 seconds\nProcess exited with code 1\nOriginal token count: 4\nOutput:\nboom\n",
			"Command: /bin/zsh -lc \"python - <<'PY'\nprint(1)\nPY\"\nProcess exited with code 1\nOriginal token count: 4\nOutput:\nboom\n",
			"Chunk ID: 0a1b2c\nWall time: 0.1 seconds"},
		{`{"output":"ok\n","metadata":{"exit_code":0,"duration_seconds":1.3}}`, `{"output":"ok\n","metadata":{"exit_code":0}}`, `"duration_seconds":1.3`},
		{`{"output":"ok","metadata":{"duration_seconds":0.5,"exit_code":2}}`, `{"output":"ok","metadata":{"exit_code":2}}`, `"duration_seconds":0.5`},
		// Not Codex's header: the whole result is the output.
		{"Exit code: 0\nsomething else\nOutput:\nx", "", ""},
		{"Wall time is long\nOutput:\nx", "", ""},
		{"plain output", "", ""},
		{"Exit code: 0\nOutput:\nno wall time", "", ""},
	}
	for _, c := range cases {
		out, env := codexEnvelope(c.in)
		want := c.output
		if c.envelope == "" {
			want = c.in
		}
		if out != want || env != c.envelope {
			t.Errorf("codexEnvelope(%q) = %q, %q; want %q, %q", c.in, out, env, want, c.envelope)
		}
	}
	// The formats that declare Codex's envelope, and one that declares none.
	for format, has := range map[string]bool{"codex": true, "openai-chat": true, "openai-responses": true, "claude-code": false, "cline": false} {
		_, env := SplitEnvelope(format, "Exit code: 0\nWall time: 1 seconds\nOutput:\nx")
		if (env != "") != has {
			t.Errorf("%s: envelope %q, want one: %v", format, env, has)
		}
	}
}

func TestCodexShellOutput(t *testing.T) {
	cases := []struct {
		in, output  string
		exit        int
		hasExit, ok bool
	}{
		{"Chunk ID: f69b0a\nWall time: 0.0428 seconds\nProcess exited with code 0\nOriginal token count: 3\nOutput:\nlab-loop\n", "lab-loop\n", 0, true, true},
		{"Chunk ID: ff1107\nWall time: 0.0417 seconds\nProcess exited with code 1\nOriginal token count: 12\nOutput:\ncat: x: No such file or directory\n",
			"cat: x: No such file or directory\n", 1, true, true},
		{"Exit code: 2\nWall time: 1 seconds\nOutput:\nboom", "boom", 2, true, true},
		{"Chunk ID: 1a2b3c\nWall time: 10 seconds\nProcess running with session ID 4242\nOutput:\nbuilding\n", "building\n", 0, false, true},
		{"Exit code: 0\nWall time: 0.2 seconds\nOutput:", "", 0, true, true},
		// A command with a newline in it: the header's lines after it are
		// Codex's, whatever the command's lines say.
		{"Command: /bin/zsh -lc \"printf 'a\nb' > f && false\"\nChunk ID: 2470cb\nWall time: 0.09 seconds\nProcess exited with code 1\nOriginal token count: 1\nOutput:\nx\n", "x\n", 1, true, true},
		{"Command: /bin/sh -lc \"cat <<'E'\nExit code: 7\nE\"\nChunk ID: 2470cb\nWall time: 0.09 seconds\nProcess exited with code 0\nOutput:\nExit code: 7\n", "Exit code: 7\n", 0, true, true},
		{"Command: /bin/sh -lc ls\nOutput:\na\n", "a\n", 0, false, true},
		{"Command: /bin/sh -lc \"a\nsomething else\"\nChunk ID: 1\nOutput:\nx", "x", 0, false, true},
		// Not Codex's header.
		{"Exit code: x\nOutput:\nno", "Exit code: x\nOutput:\nno", 0, false, false},
		{"Exit code: 0\nsomething else\nOutput:\nx", "Exit code: 0\nsomething else\nOutput:\nx", 0, false, false},
		{"plain output", "plain output", 0, false, false},
	}
	for _, c := range cases {
		out, exit, hasExit, ok := CodexShellOutput(c.in)
		if out != c.output || exit != c.exit || hasExit != c.hasExit || ok != c.ok {
			t.Errorf("CodexShellOutput(%q) = %q, %d, %v, %v; want %q, %d, %v, %v", c.in, out, exit, hasExit, ok, c.output, c.exit, c.hasExit, c.ok)
		}
	}
}

func TestCodexStructuredExit(t *testing.T) {
	cases := []struct {
		in   string
		exit int
		ok   bool
	}{
		{`{"output":"ok\n","metadata":{"exit_code":0,"duration_seconds":0.1}}`, 0, true},
		{`{"output":"command timed out after 1005 milliseconds\n","metadata":{"exit_code":124,"duration_seconds":1.0}}`, 124, true},
		{`{"output":"x","metadata":{"exit_code":-1,"duration_seconds":0.0}}`, -1, true},
		// A newer build's hint after the metadata.
		{`{"output":"x","metadata":{"exit_code":2,"duration_seconds":0.0},"hint":"h"}`, 2, true},
		// The output quoting another structured result: its quotes are
		// escaped, the real metadata is the last one.
		{`{"output":"{\"output\":\"\",\"metadata\":{\"exit_code\":0}}","metadata":{"exit_code":1,"duration_seconds":0.0}}`, 1, true},
		{`{"output":"{\"output\":\"\",\"metadata\":{\"exit_code\":3}}","metadata":{"exit_code":0,"duration_seconds":0.0}}`, 0, true},
		// Not the structured output.
		{`{"output":"x"}`, 0, false},
		{`{"result":"x","metadata":{"exit_code":1}}`, 0, false},
		{`{"output":"x","metadata":{"exit_code":"1"}}`, 0, false},
		{"Exit code: 1\nWall time: 1 seconds\nOutput:\nx", 0, false},
	}
	for _, c := range cases {
		exit, ok := codexStructuredExit(c.in)
		if exit != c.exit || ok != c.ok {
			t.Errorf("codexStructuredExit(%q) = %d, %v; want %d, %v", c.in, exit, ok, c.exit, c.ok)
		}
	}
}
