// Package corpusgen writes a deterministic corpus of made-up agent transcripts, in
// the on-disk formats loopgate reads (hermes export, gateway and trajectory
// files, batch-runner output and session snapshots, nanobot sessions, OpenAI
// Chat Completions and Responses logs, Claude Code sessions and Codex CLI
// rollouts, OpenHands trajectories), with
// loops of known shapes planted in some sessions. It feeds the benchmark
// (docs/performance.md) and the corpus on which guard thresholds are tuned:
// .manifest.json, written next to the files, records where every planted loop
// is and which of its calls are truly redundant, so precision and recall can
// be measured against ground truth rather than against another guard.
//
// The same Config always yields byte-identical files: every file draws from
// its own PCG stream seeded by (Seed, file index), output never depends on
// map order, and timestamps are derived from the seed. Files are written in
// parallel, each streamed through a bufio.Writer; only one session is held
// in memory at a time.
package corpusgen

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// Format ids, as loopgate's ingesters name them.
const (
	FormatHermesExport     = "hermes-export"
	FormatHermesGateway    = "hermes-gateway"
	FormatHermesTrajectory = "hermes-trajectory"
	FormatNanobot          = "nanobot"
	FormatOpenAIChat       = "openai-chat"
	FormatOpenAIResponses  = "openai-responses"
	FormatClaudeCode       = "claude-code"
	FormatCodex            = "codex"
	FormatHermesBatch      = "hermes-batch"
	FormatHermesSnapshot   = "hermes-snapshot"
	FormatOpenHands        = "openhands"
	FormatPi               = "pi"
	// The later formats (write_formats_b.go).
	FormatHermesRequestDump = "hermes-request-dump"
	FormatSWEAgent          = "swe-agent"
	FormatATIF              = "atif"
)

// Formats lists every format the generator writes.
// New formats go last: a corpus of the earlier ones, asked for by name,
// stays byte for byte what it was.
var Formats = []string{FormatHermesExport, FormatHermesGateway, FormatHermesTrajectory, FormatNanobot, FormatOpenAIChat, FormatOpenAIResponses, FormatClaudeCode, FormatCodex, FormatHermesBatch, FormatHermesSnapshot, FormatOpenHands, FormatPi, FormatHermesRequestDump, FormatSWEAgent, FormatATIF}

// LargeFileBytes is the size above which a file counts as large.
const LargeFileBytes = 50 << 20

// Config says what to generate.
type Config struct {
	Seed int64 `json:"seed"`
	// TotalBytes is the corpus size to aim at (the manifest not included).
	TotalBytes int64 `json:"total_bytes"`
	// Formats is a subset of Formats; empty means all.
	Formats []string `json:"formats"`
	// MaxFileBytes caps every file (default 64 MiB).
	MaxFileBytes int64 `json:"max_file_bytes"`
	// LargeFiles is how many files over 50 MB to write when TotalBytes and
	// MaxFileBytes allow.
	LargeFiles int `json:"large_files"`
	// MaxResultBytes caps one tool result (default 1 MiB).
	MaxResultBytes int `json:"max_result_bytes"`
	// Loops plants loops in about 40% of the sessions.
	Loops bool `json:"loops"`
	// LoopRate, with Loops, plants a further loop in place of this percent
	// of the ordinary steps: a loop-heavy corpus, where a quarter or more
	// of the calls are stopped, for timing the work a stop costs (token
	// counts of the results it saves). 0 leaves the corpus as without it.
	LoopRate int `json:"loop_rate,omitempty"`
}

// Manifest describes a generated corpus and its ground truth.
type Manifest struct {
	Generator string     `json:"generator"`
	Config    Config     `json:"config"`
	Files     []FileInfo `json:"files"`
	Loops     []Loop     `json:"loops"`
	Totals    Totals     `json:"totals"`
}

// FileInfo is one written file.
type FileInfo struct {
	// Path is relative to the corpus directory, with forward slashes.
	Path      string `json:"path"`
	Format    string `json:"format"`
	Bytes     int64  `json:"bytes"`
	Sessions  int    `json:"sessions"`
	Calls     int    `json:"calls"`
	Redundant int    `json:"redundant"`
	Loops     int    `json:"loops"`
}

// Loop is one planted loop and its ground truth.
type Loop struct {
	File   string `json:"file"`
	Format string `json:"format"`
	// Session is the session id as loopgate's ingester derives it; Line
	// is the JSONL line where the session's record starts (1 for
	// one-session files, 0 for a whole-file JSON document).
	Session string `json:"session"`
	Line    int    `json:"line"`
	// Agent is "main", or the subagent session id (hermes export).
	Agent   string `json:"agent"`
	Shape   string `json:"shape"`
	Variant string `json:"variant,omitempty"`
	// Turn is the 1-based turn of the loop's first call.
	Turn int `json:"turn"`
	// Calls are the 1-based indices, in the session, of the loop's calls.
	Calls []int `json:"calls"`
	// Tools are the tool names of Calls, in order.
	Tools []string `json:"tools"`
	// Redundant calls repeat an earlier call of the session with the same
	// tool, canonical arguments and result (docs/cli.md): stopping them loses
	// nothing.
	Redundant []int `json:"redundant"`
	// NewInfo calls repeat an earlier call's tool and canonical arguments
	// but got a result no earlier such call got (a poll that moved on, a
	// re-read after a write, a retry that worked): stopping them hides
	// information.
	NewInfo []int `json:"new_info"`
	// Folded is true when the calls' arguments differ only by case and
	// surrounding white space (web-repeat): equal under nanobot's
	// strip().lower() folding, different under the canonical arguments.
	Folded bool `json:"folded,omitempty"`
}

// Totals sums the corpus.
type Totals struct {
	Files           int            `json:"files"`
	LargeFiles      int            `json:"large_files"`
	Bytes           int64          `json:"bytes"`
	Sessions        int            `json:"sessions"`
	Subagents       int            `json:"subagent_sessions"`
	HealthySessions int            `json:"healthy_sessions"`
	Turns           int            `json:"turns"`
	Calls           int            `json:"calls"`
	Redundant       int            `json:"redundant"`
	NewInfo         int            `json:"new_info"`
	Loops           int            `json:"loops"`
	LoopsByShape    map[string]int `json:"loops_by_shape"`
	MaxResultBytes  int            `json:"max_result_bytes"`
}

type filePlan struct {
	index  int
	format string
	target int64
	path   string
	// name parts fixed at plan time
	sid, key string
	single   bool // one session in the file
}

type fileResult struct {
	info  FileInfo
	loops []Loop
	t     Totals
	err   error
}

func (c *Config) normalize() error {
	if c.TotalBytes <= 0 {
		return errors.New("gen: TotalBytes must be positive")
	}
	if len(c.Formats) == 0 {
		c.Formats = append([]string(nil), Formats...)
	}
	for _, f := range c.Formats {
		known := false
		for _, k := range Formats {
			known = known || f == k
		}
		if !known {
			return fmt.Errorf("gen: unknown format %q (known: %s)", f, strings.Join(Formats, ", "))
		}
	}
	if c.MaxFileBytes <= 0 {
		c.MaxFileBytes = 64 << 20
	}
	if c.MaxFileBytes < 8<<10 {
		return errors.New("gen: MaxFileBytes must be at least 8 KiB")
	}
	if c.MaxResultBytes <= 0 {
		c.MaxResultBytes = 1 << 20
	}
	if c.LargeFiles < 0 {
		c.LargeFiles = 0
	}
	if c.LoopRate < 0 || c.LoopRate > 100 {
		return errors.New("gen: LoopRate is a percent, 0 to 100")
	}
	if c.LoopRate > 0 && !c.Loops {
		return errors.New("gen: LoopRate needs Loops")
	}
	return nil
}

// Generate writes the corpus into dir (created if needed) and returns its
// manifest, also written as dir/.manifest.json.
func Generate(dir string, cfg Config) (*Manifest, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	plans := planFiles(cfg)
	p := newPool(cfg.Seed)
	results := make([]fileResult, len(plans))
	jobs := make(chan int)
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), len(plans))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results[i] = writeFile(dir, cfg, plans[i], p)
			}
		}()
	}
	for i := range plans {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	m := &Manifest{Generator: "loopgate gencorpus 1", Config: cfg, Files: []FileInfo{}, Loops: []Loop{}}
	m.Totals.LoopsByShape = map[string]int{}
	for _, sh := range Shapes {
		m.Totals.LoopsByShape[sh] = 0
	}
	for _, r := range results {
		if r.err != nil {
			return nil, r.err
		}
		m.Files = append(m.Files, r.info)
		m.Loops = append(m.Loops, r.loops...)
		t := &m.Totals
		t.Files++
		t.Bytes += r.info.Bytes
		if r.info.Bytes > LargeFileBytes {
			t.LargeFiles++
		}
		t.Sessions += r.t.Sessions
		t.Subagents += r.t.Subagents
		t.HealthySessions += r.t.HealthySessions
		t.Turns += r.t.Turns
		t.Calls += r.t.Calls
		t.Redundant += r.t.Redundant
		t.NewInfo += r.t.NewInfo
		t.MaxResultBytes = max(t.MaxResultBytes, r.t.MaxResultBytes)
		for _, l := range r.loops {
			t.Loops++
			t.LoopsByShape[l.Shape]++
		}
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ".manifest.json"), append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return m, nil
}

// baseTime is the corpus epoch: a day in 2026 chosen by the seed.
func baseTime(seed int64) time.Time {
	d := int64(uint64(seed) % 200)
	return time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(d) * 24 * time.Hour)
}

// planFiles decides every file's format, size and name: a few large files
// when allowed, then many small files, a middle band and a long tail.
func planFiles(cfg Config) []filePlan {
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), 0x706c616e))
	var sizes []int64
	left := cfg.TotalBytes
	if cfg.MaxFileBytes > LargeFileBytes {
		hi := min(cfg.MaxFileBytes*19/20, LargeFileBytes*8/5)
		for i := 0; i < cfg.LargeFiles; i++ {
			s := LargeFileBytes + 1<<20 + r.Int64N(max(hi-LargeFileBytes-1<<20, 1))
			if s > left*3/5 {
				break
			}
			sizes = append(sizes, s)
			left -= s
		}
	}
	// Only the planned large files go over 50 MB.
	capSize := min(cfg.MaxFileBytes*9/10, LargeFileBytes)
	for left > 0 {
		var s int64
		switch v := r.IntN(100); {
		case v < 70:
			s = logUniform(r, 1500, 20_000)
		case v < 95:
			s = logUniform(r, 20_000, 1<<20)
		default:
			s = logUniform(r, 1<<20, max(capSize, 1<<20+1))
		}
		s = min(s, capSize, left)
		if left-s < 1500 {
			s = min(left, capSize)
		}
		sizes = append(sizes, s)
		left -= s
	}
	multi := []string{}
	for _, f := range cfg.Formats {
		switch f {
		case FormatNanobot, FormatHermesGateway, FormatClaudeCode, FormatCodex, FormatHermesSnapshot, FormatPi, FormatHermesRequestDump, FormatSWEAgent, FormatATIF:
			// one session per file: no file of theirs is planned large
		default:
			multi = append(multi, f)
		}
	}
	counters := map[string]int{}
	plans := make([]filePlan, len(sizes))
	base := baseTime(cfg.Seed)
	for i, s := range sizes {
		f := cfg.Formats[r.IntN(len(cfg.Formats))]
		if s > LargeFileBytes && len(multi) > 0 {
			f = multi[r.IntN(len(multi))]
		}
		counters[f]++
		n := counters[f]
		pl := filePlan{index: i, format: f, target: s}
		day := base.Add(time.Duration(i) * 37 * time.Minute)
		switch f {
		case FormatHermesExport:
			pl.path = fmt.Sprintf("hermes/export/sessions_export_%04d.jsonl", n)
		case FormatHermesGateway:
			pl.single = true
			pl.sid = day.Format("20060102_150405") + "_" + randString(r, "0123456789abcdef", 8)
			pl.path = "hermes/gateway/" + pl.sid + ".jsonl"
		case FormatHermesTrajectory:
			name := "trajectory_samples.jsonl"
			if r.IntN(4) == 0 {
				name = "failed_trajectories.jsonl"
			}
			pl.path = fmt.Sprintf("hermes/trajectories/run_%04d/%s", n, name)
		case FormatNanobot:
			pl.single = true
			channels := []string{"telegram", "websocket", "slack", "discord", "qq", "feishu"}
			ch := channels[r.IntN(len(channels))]
			pl.key = ch + ":" + randString(r, "0123456789abcdef", 10)
			if r.IntN(2) == 0 {
				pl.path = "nanobot/sessions/" + base64.RawURLEncoding.EncodeToString([]byte(pl.key)) + ".jsonl"
			} else {
				pl.path = "nanobot/sessions/" + strings.ReplaceAll(pl.key, ":", "_") + ".jsonl"
			}
		case FormatHermesBatch:
			pl.path = fmt.Sprintf("hermes/batch/run_%04d/batch_%d.jsonl", n, r.IntN(8))
		case FormatHermesSnapshot:
			pl.single = true
			pl.sid = day.Format("20060102_150405") + "_" + randString(r, "0123456789abcdef", 6)
			pl.path = "hermes/sessions/session_" + pl.sid + ".json"
		case FormatOpenHands:
			if s < 48_000 && r.IntN(2) == 0 {
				pl.single = true
				pl.path = fmt.Sprintf("openhands/trajectories/trajectory_%04d.json", n)
			} else {
				pl.path = fmt.Sprintf("openhands/output/output_%04d.jsonl", n)
			}
		case FormatClaudeCode:
			pl.single = true
			pl.sid = uuid4(r)
			pl.path = "claude/projects/-home-dev-" + word(r) + "/" + pl.sid + ".jsonl"
		case FormatPi:
			pl.single = true
			pl.sid = uuid4(r)
			pl.path = "pi/agent/sessions/--home-dev-" + word(r) + "--/" + day.UTC().Format("2006-01-02T15-04-05-000Z") + "_" + pl.sid + ".jsonl"
		case FormatCodex:
			pl.single = true
			pl.sid = uuid4(r)
			pl.path = "codex/sessions/" + day.UTC().Format("2006/01/02") + "/rollout-" + day.UTC().Format("2006-01-02T15-04-05") + "-" + pl.sid + ".jsonl"
		case FormatHermesRequestDump:
			pl.single = true
			pl.sid = day.Format("20060102_150405") + "_" + randString(r, "0123456789abcdef", 6)
			pl.path = "hermes/sessions/request_dump_" + pl.sid + "_" + day.Add(7*time.Minute).Format("20060102_150405") + "_" + randString(r, "0123456789", 6) + ".json"
		case FormatSWEAgent:
			pl.single = true
			inst := fmt.Sprintf("%s__%s-%d", word(r), word(r), 1000+r.IntN(9000))
			pl.path = fmt.Sprintf("swe-agent/trajectories/dev/run_%04d/%s/%s.traj", n, inst, inst)
		case FormatATIF:
			pl.single = true
			pl.path = fmt.Sprintf("harbor/jobs/job_%04d/trial_%d/agent/trajectory.json", n, r.IntN(5))
		case FormatOpenAIChat, FormatOpenAIResponses:
			kind := "chat"
			if f == FormatOpenAIResponses {
				kind = "responses"
			}
			if s < 48_000 && r.IntN(2) == 0 {
				pl.single = true
				pl.path = fmt.Sprintf("openai/%s/conversation_%04d.json", kind, n)
			} else {
				pl.path = fmt.Sprintf("openai/%s/%s_log_%04d.jsonl", kind, kind, n)
			}
		}
		plans[i] = pl
	}
	return plans
}

// harnessOf says whose tools a format's sessions use.
func harnessOf(format string) harness {
	switch format {
	case FormatNanobot:
		return hNanobot
	case FormatOpenAIChat, FormatOpenAIResponses, FormatClaudeCode, FormatCodex, FormatOpenHands, FormatPi, FormatSWEAgent, FormatATIF:
		// Claude Code, Codex and OpenHands sessions are built with the
		// OpenAI harness's tools and renamed as they are written
		// (write_agents.go).
		return hOpenAI
	}
	return hHermes
}

// fileWriter is what each format implements.
type fileWriter interface {
	// session writes one session (and, for hermes export, its subagent
	// sessions) and returns, for each written session in order, the id and
	// the line it starts on.
	session(lw *lineWriter, s *session) []written
}

type written struct {
	s    *session
	id   string
	line int
}

func writeFile(dir string, cfg Config, pl filePlan, p *pool) (res fileResult) {
	r := rand.New(rand.NewPCG(uint64(cfg.Seed), uint64(pl.index)*0x9e3779b97f4a7c15+1))
	full := filepath.Join(dir, filepath.FromSlash(pl.path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fileResult{err: err}
	}
	f, err := os.Create(full)
	if err != nil {
		return fileResult{err: err}
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && res.err == nil {
			res.err = cerr
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	lw := &lineWriter{w: bw}
	b := &builder{r: r, tk: &toolkit{h: harnessOf(pl.format), r: r, p: p}, maxResult: cfg.MaxResultBytes, loops: cfg.Loops, loopRate: cfg.LoopRate, shapeNext: pl.index}
	switch pl.format {
	case FormatClaudeCode:
		b.callExtra = 1250
	case FormatCodex:
		b.callExtra = 400
	case FormatOpenHands:
		// OpenHands polls a running command with execute_bash (is_input
		// true, or a command reading its log): to the guards that is a
		// repeated shell command, whose changing output is new
		// information every time. loopgate's preset blocks shell commands
		// after one identical result (rules/presets/loopgate.yaml says
		// so), and with polls planted as `cat <log>` commands it made 12
		// harmful stops on one seed of the tuning corpus. No poll loops are
		// planted in OpenHands sessions until the rules can tell such a
		// poll from a repeat.
		b.callExtra, b.noPoll = 900, true
	case FormatPi:
		// pi has no tool to poll a background job (piTool).
		b.callExtra, b.noPoll = 500, true
	}
	fw := newFormatWriter(pl, r)
	res.info = FileInfo{Path: pl.path, Format: pl.format}
	clock := baseTime(cfg.Seed).Add(time.Duration(pl.index) * 37 * time.Minute).UnixMicro()
	reverse := pl.format == FormatHermesExport // an export lists the newest session first
	for {
		budget := pl.target
		if !pl.single {
			remaining := pl.target - lw.n - int64(len(lw.b))
			if remaining < 1200 && res.info.Sessions > 0 { // never an empty file
				break
			}
			if r.IntN(20) == 0 {
				budget = logUniform(r, 150_000, 4<<20)
			} else {
				budget = logUniform(r, 2_000, 150_000)
			}
			if budget > remaining || remaining-budget < 1500 {
				budget = remaining
			}
		}
		s := b.build(budget, pl.format == FormatHermesExport, 0)
		span := int64(len(s.turns))*10*60e6 + 3600e6
		if reverse {
			clock -= span
			timeSession(r, s, clock, pl)
		} else {
			timeSession(r, s, clock, pl)
			clock += span
		}
		for _, w := range fw.session(lw, s) {
			res.addSession(w, pl)
		}
		if lw.err != nil || pl.single {
			break
		}
	}
	lw.flush()
	if err := bw.Flush(); err != nil && lw.err == nil {
		lw.err = err
	}
	if lw.err != nil {
		return fileResult{err: fmt.Errorf("gen: writing %s: %w", pl.path, lw.err)}
	}
	res.info.Bytes = lw.n
	return res
}

// timeSession gives a session (and its subagents) ids and timestamps.
func timeSession(r *rand.Rand, s *session, start int64, pl filePlan) {
	start += int64(r.IntN(60_000_000)) // seconds and microseconds, as real clocks give
	s.start = start
	at := start + int64(r.IntN(30))*1e6
	for _, t := range s.turns {
		t.at = at
		at += int64(len(t.steps)+1)*int64(2+r.IntN(20))*1e6 + int64(60+r.IntN(540))*1e6
	}
	s.end = at
	switch pl.format {
	case FormatHermesGateway, FormatClaudeCode, FormatCodex, FormatHermesSnapshot, FormatPi:
		s.id = pl.sid
	case FormatNanobot:
		s.id, s.key = pl.key, pl.key
	default:
		s.id = time.UnixMicro(start).UTC().Format("20060102_150405") + "_" + randString(r, "0123456789abcdef", 6)
	}
	models := map[harness][]string{
		hHermes:  {"anthropic/claude-opus-4.6", "openai/gpt-5.4", "qwen/qwen3.5-27b", "moonshotai/kimi-k2.6"},
		hNanobot: {"anthropic/claude-sonnet-4.6", "deepseek/deepseek-v3.2"},
		hOpenAI:  {"gpt-5", "gpt-4.1", "gpt-5-mini"},
	}[harnessOf(pl.format)]
	switch pl.format {
	case FormatClaudeCode:
		models = []string{"claude-sonnet-4-5-20250929", "claude-opus-4-6", "claude-haiku-4-5-20251001"}
	case FormatPi:
		models = []string{"claude-sonnet-4-5", "claude-opus-4-6", "gpt-5"}
	case FormatCodex:
		models = []string{"gpt-5-codex", "gpt-5.1-codex-max", "gpt-5-codex-mini"}
	case FormatOpenHands:
		models = []string{"litellm_proxy/claude-sonnet-4-5-20250929", "litellm_proxy/gpt-5", "litellm_proxy/qwen3-coder-480b"}
	}
	s.model = models[r.IntN(len(models))]
	if s.source == "" {
		s.source = []string{"cli", "cli", "telegram", "discord", "slack"}[r.IntN(5)]
	}
	for _, d := range s.children {
		timeSession(r, d.child, d.turn.at+5e6, pl)
		d.child.parent = s.id
		d.child.source = "subagent"
		d.call.result = delegateResult(r, d.child)
	}
}

// number gives every call of s its index and turn, and computes the truth:
// a call is redundant when an earlier call had the same tool, canonical
// arguments and normalized result, it observes (a shell command that acts
// never is), and no act since may have changed what it observes
// (effectOf); it brings new information when an earlier call had the same
// tool and arguments but no earlier one had its result.
func number(s *session) (redundant, newInfo map[*call]bool) {
	redundant, newInfo = map[*call]bool{}, map[*call]bool{}
	// seen maps a signature to its distinct results, each with the latest
	// call that returned it.
	type seenResult struct {
		res string
		at  int
	}
	seen := map[string][]seenResult{}
	var acts []genEffect // in order
	idx := 0
	for ti, t := range s.turns {
		for _, st := range t.steps {
			for _, c := range st.calls {
				idx++
				c.index, c.turn = idx, ti+1
				sig := c.tool + "\x00" + canonicalArgs(c.args)
				res := normalizeResult(c.result)
				fx := effectOf(c)
				prev, ok := seen[sig]
				if ok {
					last := 0
					for _, p := range prev {
						if p.res == res {
							last = p.at
							break
						}
					}
					switch {
					case last == 0:
						newInfo[c] = true
					case fx.kind != fxAct && !invalidated(acts, last, fx):
						redundant[c] = true
					}
				}
				found := false
				for k := range prev {
					if prev[k].res == res {
						prev[k].at, found = idx, true
					}
				}
				if !found {
					prev = append(prev, seenResult{res, idx})
				}
				seen[sig] = prev
				if fx.kind == fxAct {
					fx.at = idx
					acts = append(acts, fx)
				}
			}
		}
	}
	s.calls, s.redundant = idx, len(redundant)
	return redundant, newInfo
}

// guardSuffixes are the agents' own notes that the replay's truth removes
// before comparing results (the same list as analyze/guard/result.go's).
var guardSuffixes = []string{
	"\n\n[Tool loop warning:",
	"\n\n[Tool loop hard stop:",
	"\n\n[hermes note:",
	"\n\n[Analyze the error above and try a different approach.]",
	"\n\n[Repeated ",
}

func normalizeResult(r string) string {
	for _, s := range guardSuffixes {
		if i := strings.Index(r, s); i >= 0 {
			r = r[:i]
		}
	}
	return strings.TrimRight(r, " \t\r\n")
}

func (res *fileResult) addSession(w written, pl filePlan) {
	s := w.s
	red, nw := number(s)
	res.info.Sessions++
	res.info.Calls += s.calls
	res.info.Redundant += s.redundant
	res.t.Sessions++
	if s.source == "subagent" {
		res.t.Subagents++
	}
	res.t.Turns += len(s.turns)
	res.t.Calls += s.calls
	res.t.Redundant += s.redundant
	res.t.NewInfo += len(nw)
	if len(s.loops) == 0 && s.redundant == 0 {
		res.t.HealthySessions++
	}
	for _, t := range s.turns {
		for _, st := range t.steps {
			for _, c := range st.calls {
				res.t.MaxResultBytes = max(res.t.MaxResultBytes, len(c.result))
			}
		}
	}
	agent := "main"
	if s.source == "subagent" {
		agent = w.id
	}
	for _, p := range s.loops {
		l := Loop{File: pl.path, Format: pl.format, Session: w.id, Line: w.line, Agent: agent, Shape: p.shape, Variant: p.variant,
			Turn: p.calls[0].turn, Calls: []int{}, Tools: []string{}, Redundant: []int{}, NewInfo: []int{}, Folded: p.fold}
		for _, c := range p.calls {
			l.Calls = append(l.Calls, c.index)
			l.Tools = append(l.Tools, c.tool)
			if red[c] {
				l.Redundant = append(l.Redundant, c.index)
			}
			if nw[c] {
				l.NewInfo = append(l.NewInfo, c.index)
			}
		}
		res.loops = append(res.loops, l)
		res.info.Loops++
	}
}

// genEffect is what a generated call does to the files of its session, read
// from the generator's own small vocabulary of tools and commands (an
// oracle of its own, not the replay's reading): it observes paths (or
// everything), acts on paths (or on anything), or neither.
type genEffect struct {
	kind  int
	paths []string
	all   bool
	at    int // the call's index, for an act
}

const (
	fxNone = iota
	fxObserve
	fxAct
)

// effectOf reads a generated call.
func effectOf(c *call) genEffect {
	return effectOfArgs(c.tool, func(name string) (any, bool) {
		for _, a := range c.args {
			if a.k == name {
				return a.v, true
			}
		}
		return nil, false
	})
}

// Effects follows what the calls of one session do to its files, for a
// reader of the generated files that recounts the truth: Note each call in
// order, and ask whether a repeat is redundant.
type Effects struct{ acts []genEffect }

// Redundant notes the call at index (1-based) of tool with args (decoded
// JSON) and reports whether, when it returns the same result as the call
// at last (0: none did), it is redundant: it observes and no act between
// may have changed what it observes.
func (e *Effects) Redundant(index int, tool string, args map[string]any, last int) bool {
	fx := effectOfArgs(tool, func(name string) (any, bool) { v, ok := args[name]; return v, ok })
	red := last > 0 && fx.kind != fxAct && !invalidated(e.acts, last, fx)
	if fx.kind == fxAct {
		fx.at = index
		e.acts = append(e.acts, fx)
	}
	return red
}

// Acts reports whether a generated call of tool with args acts (a write, a
// delegated task, a shell command that is not one of the generator's
// reads): such a call is never redundant.
func Acts(tool string, args map[string]any) bool {
	return effectOfArgs(tool, func(name string) (any, bool) { v, ok := args[name]; return v, ok }).kind == fxAct
}

func effectOfArgs(tool string, get func(string) (any, bool)) genEffect {
	arg := func(name string) string {
		if v, ok := get(name); ok {
			if s, ok := v.(string); ok {
				return s
			}
		}
		return ""
	}
	path := arg("path")
	if path == "" {
		path = arg("file_path")
	}
	observe := genEffect{kind: fxObserve, paths: []string{path}, all: path == ""}
	switch tool {
	case "read_file", "Read", "read", "grep", "Grep", "search_files", "glob", "list_dir":
		return observe
	case "write_file", "Write", "write", "edit_file", "edit", "patch":
		return genEffect{kind: fxAct, paths: []string{path}}
	case "str_replace_editor":
		if arg("command") == "view" {
			return observe
		}
		return genEffect{kind: fxAct, paths: []string{path}}
	case "apply_patch":
		var paths []string
		for line := range strings.SplitSeq(arg("input"), "\n") {
			if _, p, ok := strings.Cut(line, " File: "); ok {
				paths = append(paths, p)
			}
		}
		return genEffect{kind: fxAct, paths: paths, all: len(paths) == 0}
	case "delegate_task", "job_start":
		return genEffect{kind: fxAct, all: true}
	case "terminal", "exec", "bash", "Bash", "exec_command", "execute_bash":
		if _, ok := get("background"); ok {
			return genEffect{kind: fxAct, all: true}
		}
		if _, ok := get("run_in_background"); ok {
			return genEffect{kind: fxAct, all: true}
		}
		if _, ok := get("yield_time_ms"); ok {
			return genEffect{kind: fxAct, all: true} // a job started (codexTool)
		}
		cmd := strings.Fields(arg("command") + arg("cmd"))
		for i, w := range cmd {
			if w == "|" {
				cmd = cmd[:i]
				break
			}
		}
		switch {
		case len(cmd) >= 2 && cmd[0] == "git" && (cmd[1] == "log" || cmd[1] == "status"):
			return genEffect{kind: fxObserve, all: true}
		case len(cmd) >= 2 && (cmd[0] == "ls" || cmd[0] == "wc" || cmd[0] == "sed" || cmd[0] == "rg" || cmd[0] == "grep" || cmd[0] == "cat"):
			// ls -la DIR, wc -l PATH, sed -n '1,400p' PATH, rg -n 'P'
			// PATH, cat LOG: the path is the last word.
			return genEffect{kind: fxObserve, paths: []string{cmd[len(cmd)-1]}}
		}
		return genEffect{kind: fxAct, all: true}
	}
	return genEffect{}
}

// invalidated reports whether an act after the call at index last may have
// changed what an observation fx sees. Paths overlap when one is the
// other or a directory holding it (the generator writes relative paths
// without "..").
func invalidated(acts []genEffect, last int, fx genEffect) bool {
	if fx.kind != fxObserve {
		return false
	}
	for i := len(acts) - 1; i >= 0 && acts[i].at > last; i-- {
		a := acts[i]
		if a.all || fx.all {
			return true
		}
		for _, w := range a.paths {
			for _, r := range fx.paths {
				if w == r || strings.HasPrefix(w, strings.TrimSuffix(r, "/")+"/") || strings.HasPrefix(r, strings.TrimSuffix(w, "/")+"/") {
					return true
				}
			}
		}
	}
	return false
}
