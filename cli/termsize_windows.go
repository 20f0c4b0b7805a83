//go:build windows

package cli

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalColumns is the width of the console window behind f (0 if
// unknown).
func terminalColumns(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err == nil {
		return int(info.Window.Right-info.Window.Left) + 1
	}
	return 0
}
