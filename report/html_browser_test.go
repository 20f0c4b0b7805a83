package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/loopgate/loopgate/analyze"
	"github.com/loopgate/loopgate/internal/corpusgen"
	"github.com/loopgate/loopgate/internal/tokens"
	"github.com/loopgate/loopgate/rules"
)

// The browser test: each kind of page, made from a generated corpus and
// the gate fixtures, is opened from disk in headless Chromium, which must
// log no error, throw no exception and request nothing but the page
// itself; then the charts must be drawn, and hover, keyboard and filter
// must work. Screenshots go to $LOOPGATE_SCREENSHOTS (default: a directory
// under the system's temporary directory); with -update the demo's
// replay (the README's command) and the sweep screenshots are also written
// to docs/ for the README and docs/html.md.

// chromium finds a Chromium or Chrome: $LOOPGATE_CHROMIUM, else the names
// Debian and others install it under.
func chromium() string {
	if p := os.Getenv("LOOPGATE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// browserPages writes one page of each kind into dir.
func browserPages(t *testing.T, dir string) map[string]string {
	t.Helper()
	corpus := filepath.Join(dir, "corpus")
	if _, err := corpusgen.Generate(corpus, corpusgen.Config{Seed: 7, TotalBytes: 3 << 20, MaxFileBytes: 128 << 10, MaxResultBytes: 8 << 10, Loops: true}); err != nil {
		t.Fatal(err)
	}
	files := corpusFiles(t, corpus)
	counter, err := tokens.New(tokens.Chars4)
	if err != nil {
		t.Fatal(err)
	}
	opt := analyze.Options{Tokens: counter, Jobs: 1}
	pages := map[string]string{}
	write := func(kind string, render func(*bytes.Buffer) error) {
		var b bytes.Buffer
		if err := render(&b); err != nil {
			t.Fatalf("%s page: %v", kind, err)
		}
		path := filepath.Join(dir, kind+".html")
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		pages[kind] = path
	}

	replayRules, _ := rules.Preset("pi-loopguard")
	ro := opt
	ro.Rules = replayRules
	rep := analyze.Replay(files, ro)
	write("replay", func(b *bytes.Buffer) error { return HTML(b, rep, Options{Redact: true}) })

	var cfgs []*rules.Rules
	for _, name := range rules.PresetNames() {
		r, err := rules.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, r)
	}
	reports, facts := analyze.ReplayAll(files, opt, cfgs, nil)
	var rows []analyze.CompareRow
	for i, r := range reports {
		rows = append(rows, analyze.CompareRow{Name: cfgs[i].Name, Source: cfgs[i].Source, Summary: r.Summary})
	}
	write("compare", func(b *bytes.Buffer) error { return Compare("html", b, rows, facts, Options{Redact: true}) })

	base, _ := rules.Preset("hermes-breaker")
	var varies []analyze.Vary
	for _, spec := range []string{"detectors.consecutive.block_at=2..6", "detectors.tool_failure.block_at=2..4"} {
		v, err := analyze.ParseVary(spec)
		if err != nil {
			t.Fatal(err)
		}
		varies = append(varies, v)
	}
	scfgs, settings, err := analyze.Configs(base, varies)
	if err != nil {
		t.Fatal(err)
	}
	sreports, sfacts := analyze.ReplayAll(files, opt, scfgs, nil)
	write("sweep", func(b *bytes.Buffer) error {
		return Sweep("html", b, base.Name+" ("+base.Source+")", analyze.SweepRows(settings, sreports), sfacts, Options{Redact: true})
	})

	write("gate", func(b *bytes.Buffer) error { return GateHTML(b, testGateResult(), Options{Redact: true}) })
	// The README's picture: the demo corpus under the preset its command
	// names (loopgate replay --preset pi-loopguard --format html fixtures/demo).
	demoRules, _ := rules.Preset("pi-loopguard")
	o200k, err := tokens.New(tokens.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	demo := analyze.Replay(corpusFiles(t, filepath.Join("..", "fixtures", "demo")), analyze.Options{Tokens: o200k, Jobs: 1, Rules: demoRules})
	write("demo", func(b *bytes.Buffer) error { return HTML(b, demo, Options{Redact: true}) })
	// Sessions on both sides of a new year: the days carry their year.
	years := &analyze.Report{Sessions: []analyze.SessionResult{
		{ID: "a", File: "a.jsonl", Agent: "main", StartedAt: "2025-12-31T22:00:00Z", Calls: 2, Blocked: 1, Timeline: ".B"},
		{ID: "b", File: "b.jsonl", Agent: "main", StartedAt: "2026-01-01T09:00:00Z", Calls: 1, Timeline: "."},
	}}
	years.Summary.Sessions, years.Summary.Calls, years.Summary.Blocked = 2, 3, 1
	write("years", func(b *bytes.Buffer) error { return HTML(b, years, Options{Redact: true}) })
	// Nothing read at all: every section must still draw.
	write("empty", func(b *bytes.Buffer) error { return HTML(b, &analyze.Report{}, Options{Redact: true}) })
	return pages
}

// pageCheck is one step run on a loaded page: a JavaScript expression
// that must be true, or a Go function.
type pageCheck struct {
	what string
	js   string
	do   func(ctx context.Context) error
}

func TestHTMLInBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" && os.Getenv("LOOPGATE_REQUIRE_BROWSER") != "" {
		t.Fatal("Chromium not found and LOOPGATE_REQUIRE_BROWSER is set (.ci/run installs it with apt-get)")
	}
	if bin == "" {
		t.Skip("Chromium not found (Debian: apt-get install chromium; or set LOOPGATE_CHROMIUM): the HTML pages were not checked in a browser")
	}
	if testing.Short() {
		t.Skip("starts a browser")
	}
	dir := t.TempDir()
	if d := os.Getenv("LOOPGATE_HTML_PAGES"); d != "" {
		dir = d // keep the pages to look at
	}
	pages := browserPages(t, dir)
	shots := os.Getenv("LOOPGATE_SCREENSHOTS")
	if shots == "" {
		shots = filepath.Join(os.TempDir(), "loopgate-html-screenshots")
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.WindowSize(1280, 1500), chromedp.UserDataDir(filepath.Join(dir, "profile")))
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browser); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}

	for _, kind := range []string{"replay", "compare", "sweep", "gate", "empty", "demo", "years"} {
		t.Run(kind, func(t *testing.T) {
			ctx, cancel, problems := openPage(t, browser, pages[kind])
			defer cancel()
			for _, c := range append(browserChecks[kind], chartChecks...) {
				if c.do != nil {
					if err := c.do(ctx); err != nil {
						t.Errorf("%s: %v", c.what, err)
					}
					continue
				}
				ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](c.js))
				if err != nil || !ok {
					t.Errorf("%s: not so (%v)\n  %s", c.what, err, c.js)
				}
			}
			screenshot(t, ctx, filepath.Join(shots, kind+".png"), kind)
			if kind == "replay" {
				// Dark: the page follows prefers-color-scheme.
				dark := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
					return err
				})
				if err := chromedp.Do(ctx, dark); err != nil {
					t.Fatal(err)
				}
				bg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.documentElement).backgroundColor`))
				if err != nil || bg != "rgb(21, 21, 21)" {
					t.Errorf("dark scheme: background %q (%v), want rgb(21, 21, 21)", bg, err)
				}
				screenshot(t, ctx, filepath.Join(shots, kind+"-dark.png"), "")
				printing := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
					return err
				})
				if err := chromedp.Do(ctx, printing); err != nil {
					t.Fatal(err)
				}
				hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`getComputedStyle(document.querySelector(".controls")).display === "none"`))
				if err != nil || !hidden {
					t.Errorf("print: the table controls are not hidden (%v)", err)
				}
			}
			for _, p := range problems() {
				t.Errorf("%s page: %s", kind, p)
			}
		})
	}
	// Pages made elsewhere (a replay of a large corpus, say) are opened
	// and timed too: LOOPGATE_HTML_EXTRA=a.html,b.html.
	for _, path := range strings.Split(os.Getenv("LOOPGATE_HTML_EXTRA"), ",") {
		if path == "" {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			abs, err := filepath.Abs(path)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel, problems := openPage(t, browser, abs)
			defer cancel()
			ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`window.loopgateDrawMs`))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: drawn in %.0f ms", path, ms)
			for _, p := range problems() {
				t.Errorf("%s: %s", path, p)
			}
		})
	}
	t.Logf("screenshots in %s", shots)
}

// openPage opens the page at path (absolute) in a new tab of browser and
// waits until its script has drawn it. problems lists what went wrong in
// the tab since: console errors and warnings, uncaught exceptions, errors
// the browser logged (a Content-Security-Policy violation is one), and any
// request for something other than the page itself.
func openPage(t *testing.T, browser context.Context, path string) (context.Context, func(), func() []string) {
	t.Helper()
	ctx, cancelTab := chromedp.NewContext(browser)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	cancel := func() { cancelTimeout(); cancelTab() }
	var mu sync.Mutex
	var problems []string
	note := func(format string, a ...any) {
		mu.Lock()
		problems = append(problems, fmt.Sprintf(format, a...))
		mu.Unlock()
	}
	err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert || ev.Type == runtime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				note("console.%s: %s", ev.Type, strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			d := ev.ExceptionDetails
			desc := d.Text
			if d.Exception != nil {
				desc += " " + d.Exception.Description
			}
			note("exception at %d:%d: %s", d.LineNumber, d.ColumnNumber, desc)
		case *cdplog.EventEntryAdded:
			if ev.Entry.Level == cdplog.EntryLevelError || ev.Entry.Level == cdplog.EntryLevelWarning {
				note("browser log (%s): %s %s", ev.Entry.Level, ev.Entry.Text, ev.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			if u := ev.Request.URL; !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
				note("network request: %s", u)
			}
		}
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	enable := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, cdplog.Enable, cdp.Empty{})
		return err
	})
	if err := chromedp.Do(ctx, enable, chromedp.Navigate("file://"+path),
		chromedp.WaitReady(chromedp.CSS("body[data-ready]"))); err != nil {
		cancel()
		t.Fatalf("loading %s: %v", path, err)
	}
	return ctx, cancel, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), problems...)
	}
}

// screenshot saves the viewport as PNG at path, and with -update also as
// docs/html-KIND.png when docName is replay or sweep.
func screenshot(t *testing.T, ctx context.Context, path, docName string) {
	t.Helper()
	// The page as it opens: no hover, no focus, scrolled to the top.
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 1, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement && document.activeElement.blur && document.activeElement.blur(), window.scrollTo(0, 0), document.getElementById("tip").hidden = true, true`)); err != nil {
		t.Fatal(err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Fatalf("screenshot is not a PNG")
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if *update && (docName == "demo" || docName == "sweep") {
		if docName == "demo" { // the README's command makes this page
			docName = "replay"
		}
		if err := os.WriteFile(filepath.Join("..", "docs", "html-"+docName+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hoverOver moves the mouse to the middle of the first element matching
// selector, then checks that the tooltip shows and holds want.
func hoverOver(selector, want string) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		xy, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => {
			const e = document.querySelector(`+"`"+selector+"`"+`);
			e.scrollIntoView({block: "center"});
			const r = e.getBoundingClientRect();
			return [r.left + r.width / 2, r.top + r.height / 2];
		})()`))
		if err != nil {
			return fmt.Errorf("finding %s: %v", selector, err)
		}
		if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[0], xy[1])); err != nil {
			return err
		}
		text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("tip").hidden ? "" : document.getElementById("tip").textContent`))
		if err != nil {
			return err
		}
		if !strings.Contains(text, want) {
			return fmt.Errorf("hovering %s: tooltip %q, want it to hold %q", selector, text, want)
		}
		return nil
	}
}

// chartChecks hold for every page: counts tick on whole numbers, bubbles
// stay off the axes and their labels, the front's legend is drawn as the
// front is, the page is no wider than the window (a wide table scrolls
// in its box), arguments break between words, and days carry their year
// when the days span more than one.
var chartChecks = []pageCheck{
	{what: "count axes tick on whole numbers", js: `(!document.querySelector("rect.bar-stops") || document.querySelector("rect.bar-stops").ownerSVGElement.dataset.yint === "1") &&
		[...document.querySelectorAll("svg[data-yint] text.ytick"), ...document.querySelectorAll("svg[data-xint] text.xtick")].every(t => /[kMG]$/.test(t.textContent) || Number.isInteger(+t.textContent))`},
	{what: "bubbles inside the axes", js: `[...document.querySelectorAll("svg.chart-svg")].every(svg => {
		const a = svg.querySelector(".axis").getBBox();
		return [...svg.querySelectorAll("circle.pt")].every(c => c.cx.baseVal.value - c.r.baseVal.value >= a.x && c.cy.baseVal.value + c.r.baseVal.value <= a.y + a.height);
	})`},
	{what: "the front's legend drawn as the front", js: `(() => {
		const sw = document.querySelector(".legend .bg-pt-front"), line = document.querySelector(".legend .bg-front");
		const pt = document.querySelector("circle.pt.front"), fl = document.querySelector(".frontline");
		if (!sw) return !document.querySelector("circle.pt.front");
		return getComputedStyle(sw).backgroundColor === getComputedStyle(pt).fill &&
			(!fl || getComputedStyle(line).borderTopColor === getComputedStyle(fl).stroke);
	})()`},
	{what: "nothing past the right margin", js: `document.documentElement.scrollWidth <= document.documentElement.clientWidth`},
	{what: "arguments break between words", js: `[...document.querySelectorAll("td.args")].every(td => getComputedStyle(td).wordBreak !== "break-all")`},
	{what: "days with their year across years", js: `(() => {
		const D = JSON.parse(document.getElementById("data").textContent);
		if (!D.days || !D.days.length) return true;
		const span = D.days[0].day.slice(0, 4) !== D.days[D.days.length - 1].day.slice(0, 4);
		const labels = [...document.querySelectorAll("rect.bar-stops")].length ? [...document.querySelector("rect.bar-stops").ownerSVGElement.querySelectorAll("text.xtick")] : [];
		return labels.length > 0 && labels.every(l => l.textContent.length === (span ? 10 : 5));
	})()`},
}

var browserChecks = map[string][]pageCheck{
	"replay": {
		{what: "summary cards", js: `document.querySelectorAll(".card").length >= 7 && document.querySelector('[data-card="harmful"] .v').textContent !== "0" && document.querySelector('[data-card="stopped-actions"]') !== null`},
		{what: "timelines drawn", js: `document.querySelectorAll("#timelines svg").length >= 10 && document.querySelectorAll("#timelines rect.m-harmful").length > 0`},
		{what: "tool bars drawn", js: `document.querySelectorAll("#tool-bars rect").length > 3`},
		{what: "decisions listed", js: `document.querySelectorAll("#decisions tbody tr").length > 10`},
		{what: "stops and tokens saved per day", js: `document.querySelectorAll("rect.bar-stops").length > 0 && document.querySelectorAll("rect.bar-saved").length > 0`},
		{what: "hover on a day", do: hoverOver(`rect.bar-stops:not([height="0"]), rect.bar-saved:not([height="0"])`, "session")},
		{what: "hover on a harmful mark", do: hoverOver("#timelines rect.m-harmful", "tool: ")},
		{what: "hover shows the redacted arguments", do: hoverOver("#timelines rect.m-harmful", "args: ")},
		{what: "hover shows the call repeated", do: hoverOver("#timelines rect.m-harmful", "repeats call ")},
		{what: "keyboard: arrow through a timeline", do: func(ctx context.Context) error {
			if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS("#timelines svg")), chromedp.KeyEvent(kb.ArrowRight)); err != nil {
				return err
			}
			text, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("tip").hidden ? "" : document.getElementById("tip").textContent`))
			if err != nil {
				return err
			}
			if !strings.Contains(text, "call ") {
				return fmt.Errorf("after ArrowRight the tooltip is %q", text)
			}
			return nil
		}},
		{what: "filter: harmful only", do: func(ctx context.Context) error {
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
				const all = document.querySelectorAll("#decisions tbody tr").length;
				const f = document.getElementById("dfilter");
				f.value = "harmful"; f.dispatchEvent(new Event("change"));
				const rows = [...document.querySelectorAll("#decisions tbody tr")];
				const ok = rows.length > 0 && rows.length < all && rows.every(r => r.textContent.includes("harmful"));
				f.value = "all"; f.dispatchEvent(new Event("change"));
				return ok;
			})()`))
			if err == nil && !ok {
				err = fmt.Errorf("the rows shown are not the harmful ones")
			}
			return err
		}},
		{what: "search by typing", do: func(ctx context.Context) error {
			before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#decisions tbody tr").length`))
			if err != nil {
				return err
			}
			if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.ID("dsearch"), "terminal")); err != nil {
				return err
			}
			ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
				const rows = [...document.querySelectorAll("#decisions tbody tr")];
				return rows.length > 0 && rows.length < `+fmt.Sprint(before)+` && rows.every(r => r.textContent.includes("terminal"));
			})()`))
			if err == nil && !ok {
				err = fmt.Errorf("searching for terminal did not narrow the table to its rows (%d before)", before)
			}
			return err
		}},
		{what: "sort by tokens saved", js: `(() => {
			document.getElementById("dsearch").value = ""; document.getElementById("dsearch").dispatchEvent(new Event("input"));
			const b = [...document.querySelectorAll("#decisions th button")].find(b => b.textContent === "Tokens saved");
			b.click();
			const v = [...document.querySelectorAll("#decisions tbody tr")].map(r => +r.children[7].textContent.replace(/,/g, ""));
			return b.parentNode.getAttribute("aria-sort") === "descending" && v.every((x, i) => i === 0 || v[i-1] >= x);
		})()`},
	},
	"compare": {
		{what: "one bubble per plotted preset", js: `document.querySelectorAll("circle.pt").length >= 5`},
		{what: "a table row per preset", js: `document.querySelectorAll("#rows tbody tr").length === JSON.parse(document.getElementById("data").textContent).rows.length && document.querySelectorAll("#rows tbody tr").length >= 8`},
		{what: "hover on a bubble", do: hoverOver("circle.pt", "precision")},
	},
	"sweep": {
		{what: "one point per setting, in each chart", js: `document.querySelectorAll("circle.pt").length === 30`},
		{what: "the front marked", js: `document.querySelectorAll("circle.pt.front").length > 0`},
		{what: "hover shows the setting", do: hoverOver("circle.pt.front", "detectors.consecutive.block_at = ")},
		{what: "table rows", js: `document.querySelectorAll("#rows tbody tr").length === 15`},
	},
	"demo": {
		{what: "the demo's figures", js: `document.querySelector('[data-card="calls"] .v').textContent === "40" && document.querySelectorAll("#timelines svg").length === 4`},
		{what: "tokens saved per day drawn", js: `[...document.querySelectorAll("rect.bar-saved")].some(r => +r.getAttribute("height") > 0)`},
	},
	"years": {
		{what: "the days across a new year", js: `JSON.parse(document.getElementById("data").textContent).days.length === 2`},
	},
	"empty": {
		{what: "says there is nothing", js: `document.body.textContent.includes("No session to show") && document.body.textContent.includes("No tool calls") && document.querySelector('[data-card="precision"] .v').textContent === "n/a"`},
	},
	"gate": {
		{what: "cases, failed ones marked", js: `document.querySelectorAll(".case").length >= 4 && document.querySelectorAll(".badge.fail").length >= 2 && document.querySelectorAll(".badge.pass").length >= 1`},
		{what: "diffs of failed expectations", js: `document.querySelectorAll(".failure").length >= 5 && document.querySelectorAll(".diff del").length > 0`},
		{what: "show failed only", js: `(() => {
			const c = document.getElementById("onlyfailed"); c.click();
			const shown = [...document.querySelectorAll(".case")].filter(e => !e.hidden);
			const ok = shown.length > 0 && shown.every(e => e.dataset.passed === "false");
			c.click();
			return ok;
		})()`},
	},
}
