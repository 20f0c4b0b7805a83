//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// terminalColumns is the width of the terminal behind f (0 if unknown).
func terminalColumns(f *os.File) int {
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil {
		return int(ws.Col)
	}
	return 0
}
