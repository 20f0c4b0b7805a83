// Package lab is the agent lab's test code (docs/lab.md): a scripted model
// server on 127.0.0.1 that speaks the streaming APIs the real agents ask for,
// plays a scenario's model turns and records every request it receives, and
// the drivers that run each agent's published CLI against it. All of it is
// test code (model_server_test.go and the *_test.go drivers), so nothing of
// it is in a build; this file holds only the package's documentation.
package lab
