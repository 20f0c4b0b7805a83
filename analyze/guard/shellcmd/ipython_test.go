package shellcmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopgate/loopgate/internal/jsonx"
)

func TestFromIPython(t *testing.T) {
	tests := []struct {
		name, code string
		want       Command
	}{
		{"open_file", "open_file('/w/src/a.py')", Command{Reads: []string{"/w/src/a.py"}}},
		{"open_file at a line, double quotes", `open_file("/w/a.py", 40)`, Command{Reads: []string{"/w/a.py"}}},
		{"two reads, a comment", "# look\nopen_file('/w/a.py')\nsearch_file('x', '/w/b.py')", Command{Reads: []string{"/w/a.py", "/w/b.py"}}},
		{"search_file of the open file", "search_file('needle')", Command{ReadsAll: true}},
		{"search_dir walks", "search_dir('needle', '/w/src')", Command{Reads: []string{"/w/src"}, ReadsAll: true}},
		{"edit with a triple-quoted keyword argument", "edit_file_by_replace(\n'/w/a.py',\nto_replace=\"\"\"x = 1\"\"\",\nnew_content=\"\"\"x = (2)\"\"\",\n)", Command{Acts: true, Writes: []string{"/w/a.py"}}},
		{"read then edit: acts", "open_file('/w/a.py'); append_file('/w/b.py', 'x')", Command{Acts: true, Writes: []string{"/w/b.py"}}},
		{"path by keyword: unknown", "create_file(file_name='/w/a.py')", Command{Acts: true, Unknown: true}},
		{"path built at run time", "open_file(base + '/a.py')", Command{Acts: true, Unknown: true}},
		{"goto_line depends on earlier calls", "goto_line(10)", Command{Acts: true, Unknown: true}},
		{"plain Python", "import os\nprint(os.listdir('.'))", Command{Acts: true, Unknown: true}},
		{"assignment", "x = open_file('/w/a.py')", Command{Acts: true, Unknown: true}},
		{"call of the result", "open_file('/w/a.py').strip()", Command{Acts: true, Unknown: true}},
		{"unclosed string", "open_file('/w/a.py)", Command{Acts: true, Unknown: true}},
		{"empty", "  \n", Command{Acts: true, Unknown: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, FromIPython(tt.code)); diff != "" {
				t.Errorf("FromIPython(%q) (-want +got):\n%s", tt.code, diff)
			}
		})
	}
}

// TestFromCallIPython: OpenHands' IPython tools are read through their
// code argument, whatever class the rules give them.
func TestFromCallIPython(t *testing.T) {
	for _, tool := range []string{"run_ipython", "execute_ipython_cell"} {
		args, err := jsonx.ParseString(`{"code": "open_file('/w/a.py')"}`)
		if err != nil {
			t.Fatal(err)
		}
		c, ok := FromCall(tool, false, args)
		if !ok || c.Acts || len(c.Reads) != 1 {
			t.Errorf("%s: FromCall = %+v, %v; want an observation of /w/a.py", tool, c, ok)
		}
		noCode, _ := jsonx.ParseString(`{"kernel_init_code": ""}`)
		if c, _ := FromCall(tool, false, noCode); !c.Acts || !c.Unknown {
			t.Errorf("%s without code: %+v, want an act of unknown reach", tool, c)
		}
	}
}
