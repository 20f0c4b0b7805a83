package lab

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// acpMessage is a JSON-RPC 2.0 message of the Agent Client Protocol
// (agentclientprotocol.com): a request (method and id), a notification
// (method, no id) or a reply (id, result or error).
type acpMessage struct {
	ID     *int            `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// acpSession runs the prompts as the user turns of one session of an agent
// that speaks the Agent Client Protocol on its standard input and output,
// one JSON-RPC message a line: initialize, session/new, then a
// session/prompt per prompt, each answered when the agent's turn is over.
// before(i) runs before prompt i (the scenario's later files). The lab
// answers none of the agent's own requests (permissions, files,
// terminals): the agent is started with its tools approved and runs them
// itself.
func (b *box) acpSession(env []string, prompts []string, before func(i int) error, name string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), runLimit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.work
	cmd.Env = b.env(env...)
	cmd.Stderr = &b.out
	cmd.WaitDelay = 5 * time.Second
	ownProcess(cmd)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var mu sync.Mutex
	send := func(m map[string]any) error {
		m["jsonrpc"] = "2.0"
		line, _ := json.Marshal(m)
		mu.Lock()
		defer mu.Unlock()
		_, err := in.Write(append(line, '\n'))
		return err
	}
	replies := make(chan acpMessage, 16)
	go func() {
		defer close(replies)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<26)
		for sc.Scan() {
			var m acpMessage
			if json.Unmarshal(sc.Bytes(), &m) != nil || m.ID == nil {
				continue // a notification (session/update) or not JSON
			}
			if m.Method != "" {
				send(map[string]any{"id": *m.ID, "error": map[string]any{"code": -32601, "message": "the lab answers no requests"}})
				continue
			}
			replies <- m
		}
		io.Copy(io.Discard, out)
	}()
	next := 0
	call := func(method string, params any) (json.RawMessage, error) {
		next++
		if err := send(map[string]any{"id": next, "method": method, "params": params}); err != nil {
			return nil, fmt.Errorf("%s: %v", method, err)
		}
		for {
			select {
			case m, ok := <-replies:
				if !ok {
					return nil, fmt.Errorf("%s: the agent closed its output", method)
				}
				if *m.ID != next {
					continue
				}
				if m.Error != nil {
					return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
				}
				return m.Result, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("%s: %s timed out", method, filepath.Base(name))
			}
		}
	}
	err = func() error {
		if _, err := call("initialize", map[string]any{"protocolVersion": 1,
			"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": false, "writeTextFile": false}, "terminal": false}}); err != nil {
			return err
		}
		r, err := call("session/new", map[string]any{"cwd": b.work, "mcpServers": []any{}})
		if err != nil {
			return err
		}
		var s struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(r, &s) != nil || s.SessionID == "" {
			return fmt.Errorf("session/new: no session id in %s", r)
		}
		for i, p := range prompts {
			if err := before(i); err != nil {
				return err
			}
			if _, err := call("session/prompt", map[string]any{"sessionId": s.SessionID,
				"prompt": []any{map[string]any{"type": "text", "text": p}}}); err != nil {
				return err
			}
		}
		return nil
	}()
	// The session is over: the agent exits when its input closes, else
	// the lab ends it.
	in.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case werr := <-done:
		var exit *exec.ExitError
		if err == nil && werr != nil && !errors.As(werr, &exit) {
			err = werr
		}
	case <-time.After(10 * time.Second):
		cancel()
		<-done
	}
	return err
}
