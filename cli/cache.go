package cli

// The replay cache's flags and its opening (docs/cli.md, "The replay
// cache"; analyze/filecache.go, internal/filecache).

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/filecache"
)

// cacheFlags are replay's flags for its cache.
func cacheFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "no-cache", Usage: "read every file again: neither use nor update the replay cache"},
		&cli.StringFlag{Name: "cache-dir", Usage: "the replay cache's `DIR` (default: $" + filecache.EnvDir + ", else loopgate/ in the user's cache folder; " + filecache.EnvDir + "=off turns the cache off)"},
		&cli.StringFlag{Name: "cache-size", Value: "1GiB", Usage: "the most the replay cache may hold (`SIZE`, such as 500MB or 2GiB); the entries used least recently go first"},
	}
}

// replayCache is the cache a replay uses, nil under --no-cache. A cache
// that cannot be opened is a warning: the replay goes on without it.
func replayCache(c *cli.Context) (*diskCache, error) {
	if c.Bool("no-cache") {
		return nil, nil
	}
	size, err := parseSize(c.String("cache-size"))
	if err != nil {
		return nil, usageError("--cache-size: %v", err)
	}
	dir := c.String("cache-dir")
	if dir == "" {
		if dir, err = filecache.DefaultDir(); errors.Is(err, filecache.ErrOff) {
			return nil, nil
		} else if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "loopgate: note: no cache folder (%v): every file is read (--no-cache says so quietly)\n", err)
			return nil, nil
		}
	}
	fc, err := filecache.Open(dir, size)
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "loopgate: warning: the replay cache in %s cannot be used (%v): every file is read\n", dir, err)
		return nil, nil
	}
	return &diskCache{fc}, nil
}

// diskCache is analyze.FileCache over internal/filecache.
type diskCache struct{ *filecache.Cache }

func (d *diskCache) Identity(path string) ([]byte, bool) { return filecache.Identity(path) }

// cacheVersion is what identifies this build's results in the cache:
// its version, and for a development build (whose version does not
// change with its code) the executable's own size and time as well.
func cacheVersion() string {
	v := loopgateVersion()
	if strings.HasPrefix(v, "devel") {
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				v += fmt.Sprintf(" %s %d %d", exe, st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return v
}

// openCache is the replay's cache (nil under --no-cache) and the
// function that trims it to its bound once the replay is done.
func openCache(c *cli.Context) (analyze.FileCache, func(), error) {
	dc, err := replayCache(c)
	if err != nil || dc == nil {
		return nil, func() {}, err
	}
	return dc, func() { _ = dc.Trim() }, nil
}
