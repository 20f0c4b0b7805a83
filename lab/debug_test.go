package lab

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestServeDebug serves a lone text answer for four minutes and dumps the
// requests: how a new agent's tools and requests look (docs/lab.md).
func TestServeDebug(t *testing.T) {
	if os.Getenv("LOOPGATE_LAB_SERVE") == "" {
		t.Skip("LOOPGATE_LAB_SERVE=DIR dumps four minutes of requests into DIR")
	}
	dir := os.Getenv("LOOPGATE_LAB_SERVE")
	srv, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	os.WriteFile(dir+"/url", []byte(srv.URL), 0o644)
	time.Sleep(240 * time.Second)
	for i, r := range srv.Requests() {
		fmt.Println(i, r.API, r.Path, r.Step, r.Tools, r.Played, len(r.Body))
		os.WriteFile(fmt.Sprintf("%s/%d.json", dir, i), r.Body, 0o644)
	}
}
