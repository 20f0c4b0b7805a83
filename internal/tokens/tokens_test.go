package tokens

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"
)

// The BPE counts were measured once with tiktoken-go/tokenizer v0.10.0 and
// pinned: a library upgrade that changes them must be noticed.
func TestKnownCounts(t *testing.T) {
	cases := []struct {
		counter string
		text    string
		want    int
	}{
		{O200kBase, "", 0},
		{O200kBase, "hello world", 2},
		{O200kBase, "Hello, world!", 4},
		{O200kBase, `read_file {"path": "/etc/hosts"}`, 10},
		{O200kBase, "tokens saved: 18340", 6},
		{Cl100kBase, "hello world", 2},
		{Cl100kBase, `read_file {"path": "/etc/hosts"}`, 10},
		{Chars4, "", 0},
		{Chars4, "a", 1},
		{Chars4, "abcd", 1},
		{Chars4, "abcde", 2},
		{Chars4, "12345678", 2},
		{Chars4, "héllo", 2}, // bytes, not runes: 6 bytes
	}
	for _, c := range cases {
		counter, err := New(c.counter)
		if err != nil {
			t.Fatal(err)
		}
		if got := counter.Count(c.text); got != c.want {
			t.Errorf("%s.Count(%q) = %d, want %d", c.counter, c.text, got, c.want)
		}
	}
}

func TestNew(t *testing.T) {
	for _, name := range Names() {
		c, err := New(name)
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if c.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, c.Name())
		}
	}
	def, err := New("")
	if err != nil || def.Name() != Default {
		t.Errorf(`New("") = %v, %v; want the %s counter`, def, err, Default)
	}
	_, err = New("p50k")
	if err == nil {
		t.Fatal(`New("p50k") succeeded, want an error`)
	}
	for _, name := range Names() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %q", err, name)
		}
	}
}

// Invalid UTF-8 (a character cut by truncation) must count, not fail.
func TestInvalidUTF8(t *testing.T) {
	c, _ := New(O200kBase)
	if n := c.Count("abc\xff\xfedef"); n <= 0 {
		t.Errorf("Count of invalid UTF-8 = %d, want > 0", n)
	}
}

// Run with -race: one shared codec is used by several goroutines.
func TestConcurrentCount(t *testing.T) {
	texts := []string{
		"hello world",
		strings.Repeat(`{"path": "/src/main.go", "offset": 120} `, 50),
		"func main() { fmt.Println(\"héllo, 世界\") }",
	}
	for _, name := range []string{O200kBase, Cl100kBase} {
		c, _ := New(name)
		want := make([]int, len(texts))
		for i, s := range texts {
			want[i] = c.Count(s)
		}
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for round := 0; round < 20; round++ {
					for i, s := range texts {
						if got := c.Count(s); got != want[i] {
							errs <- name
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Errorf("%s: concurrent Count disagreed with the sequential count", e)
		}
	}
}

func BenchmarkO200k(b *testing.B) {
	c, _ := New(O200kBase)
	text := strings.Repeat("package main\n\nfunc main() { println(\"hello\") }\n", 100)
	c.Count(text)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		c.Count(text)
	}
}

// TestLoadFailureIsLoud: a BPE whose vocabulary cannot load must not count
// bytes/4 under its own name. New refuses an unknown name at once; a load
// that fails in the background (here: an encoding the library does not
// know) makes Count panic with the reason rather than count.
func TestLoadFailureIsLoud(t *testing.T) {
	if c, err := New("o200k"); err == nil || c != nil {
		t.Errorf(`New("o200k") = %v, %v; want an error`, c, err)
	}
	broken := &bpe{name: O200kBase, enc: "no-such-encoding"}
	if c := broken.start(); c != Counter(broken) {
		t.Fatalf("start returned %v", c)
	}
	if err := broken.wait(); err == nil || !strings.Contains(err.Error(), "o200k_base cannot be loaded") {
		t.Errorf("loading a missing vocabulary: %v; want an error naming o200k_base", err)
	}
	counted := func() (n int, panicked any) {
		defer func() { panicked = recover() }()
		return broken.Count("hello world"), nil
	}
	n, panicked := counted()
	if panicked == nil {
		t.Errorf("a broken %s counted %d tokens (a silent bytes/4 estimate under its name)", broken.Name(), n)
	} else if msg := fmt.Sprint(panicked); !strings.Contains(msg, "o200k_base cannot be loaded") {
		t.Errorf("the panic says %q, want the reason naming o200k_base", msg)
	}
	// The real encodings load, and nothing was approximated.
	for _, name := range []string{O200kBase, Cl100kBase} {
		c, err := New(name)
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		c.Count("hello world")
		if err := c.(*bpe).wait(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if n := Approximated(c); n != 0 {
			t.Errorf("%s approximated %d texts", name, n)
		}
	}
	if n := Approximated(chars4{}); n != 0 {
		t.Errorf("chars4 approximated %d", n)
	}
}

// TestLoadInBackground: start returns while the load is under way, and
// Count waits for it. The load is held back here until the test lets it go.
func TestLoadInBackground(t *testing.T) {
	b := &bpe{name: O200kBase, enc: tokenizer.O200kBase}
	loading, release := make(chan struct{}), make(chan struct{})
	go b.loading.Do(func() {
		close(loading)
		<-release
		b.load()
	})
	<-loading
	started := make(chan struct{})
	go func() {
		b.start()
		close(started)
	}()
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("start waited for the load")
	}
	counted := make(chan int)
	go func() { counted <- b.Count("hello world") }()
	select {
	case n := <-counted:
		t.Fatalf("Count returned %d before the load was done", n)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if n := <-counted; n != 2 {
		t.Errorf("Count = %d after the load, want 2", n)
	}
}
