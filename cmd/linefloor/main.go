// Command linefloor measures the floor under any reader of a corpus: the
// files split into lines and every line checked as JSON (jsonx.Valid), on
// every core, nothing else done. scripts/bench.sh sets replay's throughput
// against it, measured in the same run on the same files. It is
// a benchmark tool, not part of loopgate's command line.
//
//	go run ./cmd/linefloor [-jobs N] PATH...
//
// It reads the files replay would read (ingest.Expand); a file ending in
// .json is checked as one document, any other file line by line; gzipped
// files are skipped (the generated corpus has none). It prints one line:
// bytes, lines, invalid lines, seconds and MB/s.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loopgate/loopgate/ingest"
	"github.com/loopgate/loopgate/internal/jsonx"
)

// chunkSize is how much one read hands a worker: large enough that the
// hand-over costs nothing, small enough that one large file keeps every
// core busy.
const chunkSize = 1 << 20

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "linefloor:", err)
		os.Exit(2)
	}
}

type chunk struct {
	data     []byte
	document bool // a whole .json file: one value, not lines
}

type counts struct {
	bytes, lines, invalid atomic.Int64
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("linefloor", flag.ContinueOnError)
	jobs := fs.Int("jobs", 0, "goroutines checking lines (0: one per core)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("give the corpus: linefloor [-jobs N] PATH...")
	}
	if *jobs <= 0 {
		*jobs = runtime.GOMAXPROCS(0)
	}
	var problems []string
	files := ingest.Expand(fs.Args(), func(p ingest.Problem) { problems = append(problems, p.File+": "+p.Message) })
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}

	start := time.Now()
	var c counts
	work := make(chan chunk, *jobs)
	free := make(chan []byte, 2*(*jobs)+2)
	var wg sync.WaitGroup
	for range *jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ch := range work {
				check(ch, &c)
				select {
				case free <- ch.data[:0]:
				default:
				}
			}
		}()
	}
	err := readAll(files, work, free)
	close(work)
	wg.Wait()
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	fmt.Fprintf(out, "%d bytes, %d lines, %d invalid, %.3f s, %.0f MB/s (%d jobs)\n",
		c.bytes.Load(), c.lines.Load(), c.invalid.Load(), secs, float64(c.bytes.Load())/secs/1e6, *jobs)
	return nil
}

// readAll reads every file in chunks cut after a newline, one goroutine
// (reading from the page cache is not what limits this).
func readAll(files []string, work chan<- chunk, free chan []byte) error {
	for _, name := range files {
		if strings.HasSuffix(name, ".gz") {
			continue
		}
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		if strings.HasSuffix(name, ".json") {
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			work <- chunk{data: data, document: true}
			continue
		}
		err = readLines(f, work, free)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// readLines sends f in chunks of whole lines; a line longer than a chunk
// grows its buffer.
func readLines(f *os.File, work chan<- chunk, free chan []byte) error {
	var carry []byte
	for {
		var buf []byte
		select {
		case buf = <-free:
		default:
			buf = make([]byte, 0, chunkSize)
		}
		buf = append(buf, carry...)
		if cap(buf)-len(buf) < chunkSize/2 {
			grown := make([]byte, len(buf), len(buf)+chunkSize)
			copy(grown, buf)
			buf = grown
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if len(buf) > 0 {
				work <- chunk{data: buf}
			}
			return nil
		}
		if err != nil {
			return err
		}
		cut := bytes.LastIndexByte(buf, '\n')
		if cut < 0 {
			carry = append(carry[:0], buf...)
			continue
		}
		carry = append(carry[:0], buf[cut+1:]...)
		work <- chunk{data: buf[:cut+1]}
	}
}

// check validates one chunk.
func check(ch chunk, c *counts) {
	c.bytes.Add(int64(len(ch.data)))
	if ch.document {
		c.lines.Add(1)
		if !jsonx.Valid(ch.data) {
			c.invalid.Add(1)
		}
		return
	}
	var lines, invalid int64
	data := ch.data
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n')
		line := data
		if end >= 0 {
			line, data = data[:end], data[end+1:]
		} else {
			data = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		lines++
		if !jsonx.Valid(line) {
			invalid++
		}
	}
	c.lines.Add(lines)
	c.invalid.Add(invalid)
}
