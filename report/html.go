package report

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"sync"
)

// This file holds what every HTML page shares: the page template, its
// stylesheet and script (embedded from report/html/), and the size budget.
//
// A page is one self-contained file: the data it shows is one JSON
// document inside the page, the script draws the cards, charts and tables
// from it, and nothing is fetched (a Content-Security-Policy of
// default-src 'none' makes any attempt fail). html/template escapes the
// title and the JSON for the contexts they are written in; the JSON is
// also encoded with HTML escaping on, so a "</script>" in a tool's
// arguments cannot close the element that holds it.

//go:embed html/page.tmpl html/style.css html/app.js
var htmlAssets embed.FS

// htmlPageTemplate is parsed at first use, not at start: every loopgate
// process (a hook call among them) would pay for it.
var htmlPageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(htmlAssets, "html/page.tmpl"))
})

// HTMLMaxBytes bounds the size of every page: the replay page aggregates
// the sessions and decisions beyond those it can list within it (a page of
// several megabytes still opens quickly; docs/html.md: at most 5.5 MB
// whatever the corpus).
const HTMLMaxBytes = 5_500_000

// htmlBudget is HTMLMaxBytes; a test lowers it to see the page shrink.
var htmlBudget = HTMLMaxBytes

// htmlPage is what the template fills in.
type htmlPage struct {
	Kind     string // replay, compare, sweep, gate: which view the script draws
	Title    string
	Subtitle string
	CSS      template.CSS
	JS       template.JS
	Data     template.JS // JSON, HTML-escaped (see writeHTMLPage)
}

// htmlAsset reads one embedded asset; they are part of the binary, so a
// failure is a build mistake.
func htmlAsset(name string) string {
	b, err := htmlAssets.ReadFile("html/" + name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// htmlJSON encodes a page's data. encoding/json escapes <, > and & as
// \u003c, \u003e and \u0026 by default: the result can sit inside a
// <script> element whatever the strings hold.
func htmlJSON(data any) ([]byte, error) {
	b, err := json.Marshal(data)
	return escapeBidiJSON(b), err
}

// htmlShellBytes is the size of a page without its data.
func htmlShellBytes() int {
	var b bytes.Buffer
	_ = writeHTMLPage(&b, "replay", "", "", []byte("{}"))
	return b.Len()
}

// writeHTMLPage writes a page whose data is the JSON document data.
func writeHTMLPage(w io.Writer, kind, title, subtitle string, data []byte) error {
	if !json.Valid(data) {
		return fmt.Errorf("html report: page data is not JSON")
	}
	return htmlPageTemplate().Execute(w, htmlPage{
		Kind: kind, Title: Sanitize(title), Subtitle: Sanitize(subtitle),
		CSS: template.CSS(htmlAsset("style.css")),
		JS:  template.JS(htmlAsset("app.js")),
		// Trusted as script: it is JSON from encoding/json with HTML
		// escaping on, so it holds no "<" at all.
		Data: template.JS(data),
	})
}
