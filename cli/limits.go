package cli

import (
	"strconv"
	"strings"

	"github.com/loopgate/loopgate/ingest"
	"github.com/urfave/cli/v2"
)

// maxRecordFlag bounds one record (a JSONL line, a JSON document) of the
// reading commands: a larger one is one problem, and memory follows the
// limit, not the longest line.
func maxRecordFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "max-record", Value: "256MiB",
		Usage: "largest record (JSONL line or JSON document) read, e.g. 64MiB or 1GiB; a larger one is a problem and is skipped"}
}

// maxRecord is the --max-record flag in bytes.
func maxRecord(c *cli.Context) (int64, error) {
	n, err := parseSize(c.String("max-record"))
	if err != nil {
		return 0, usageError("--max-record: %v", err)
	}
	return n, nil
}

// parseSize reads a byte count: a number with an optional unit, B, KiB,
// MiB, GiB (KB, MB, GB and K, M, G are taken as the same powers of 1024).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		shift  uint
	}{{"kib", 10}, {"mib", 20}, {"gib", 30}, {"kb", 10}, {"mb", 20}, {"gb", 30}, {"k", 10}, {"m", 20}, {"g", 30}, {"b", 0}}
	shift := uint(0)
	lower := strings.ToLower(t)
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			t, shift = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.shift
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)>>shift {
		return 0, usageError("%q is not a size from 1 byte to 1 TiB (e.g. 256MiB)", s)
	}
	return n << shift, nil
}

// ingestOptions are the reading options every reading command shares.
func ingestOptions(c *cli.Context) (ingest.Options, error) {
	n, err := maxRecord(c)
	if err != nil {
		return ingest.Options{}, err
	}
	return ingest.Options{Format: c.String("input-format"), MaxRecord: n}, nil
}
