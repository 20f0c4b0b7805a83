// Package bridge lets package replayfast reach what package guard keeps
// unexported, so that guard's exported API holds only what an embedder
// needs: guard sets these functions when it is initialized, replayfast
// calls them. Nothing else uses it. Values of guard's types travel as
// any: this package cannot name them, since guard imports it.
package bridge

import (
	"github.com/loopgate/loopgate/analyze/guard/shellcmd"
	"github.com/loopgate/loopgate/internal/jsonx"
	"github.com/loopgate/loopgate/internal/resultmembers"
	"github.com/loopgate/loopgate/rules"
)

// Set by package guard (replayfast.go there); ev, prev and a are
// *guard.CallEvent, g a *guard.Guard, ki guard's key index, rc its rule
// cache.
var (
	SetArgs       func(ev any, args *jsonx.Value, compact, pending bool)
	Key           func(ev any) (string, bool)
	SameKey       func(a, b any) bool
	CallActs      func(r *rules.Rules, ev any) bool
	Effect        func(r *rules.Rules, ev any) shellcmd.Effect
	MayTouchFiles func(r *rules.Rules, tool string) bool
	ResultFacts   func(result string, isError bool, members *resultmembers.Members) (string, bool)

	NewKeyIndex func(r *rules.Rules, size int) any
	KeyServes   func(ki any, r *rules.Rules) bool
	Number      func(ki, ev any, r *rules.Rules) int
	NumberTwin  func(ki, ev, prev any, r *rules.Rules) int
	LendBuffer  func(ki any, buf []byte) []byte
	TakeBuffer  func(ki any) []byte

	NewRuleCache func(r *rules.Rules) any
	CacheServes  func(rc any, r *rules.Rules) bool
	NewGuard     func(rc, ki any) any
	Release      func(rc, g any)
)
