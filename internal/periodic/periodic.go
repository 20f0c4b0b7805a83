// Package periodic runs a function at a fixed interval on a goroutine of
// its own, for the progress line's redraws and the memory limit's
// following of the live heap. It imports only the standard library.
package periodic

import "time"

// Every calls f on a goroutine of its own every interval until f returns
// false or stop is called; stop returns once f has run for the last time.
func Every(interval time.Duration, f func() bool) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if !f() {
				return
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
