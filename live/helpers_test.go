package live

// CheckpointsRestored is how many hook calls of this test process built
// their session from a checkpoint rather than from the whole log.
func CheckpointsRestored() int64 { return restoredCheckpoints.Load() }

// readLog applies a scope's log to s, without a checkpoint (an empty tag
// matches none). A line that cannot be read is skipped and named in the
// problems returned; a log that cannot be read at all is an error.
func readLog(path string, s *session) (problems []string, err error) {
	_, _, problems, err = openSession(path, func() *session { return s }, "")
	return problems, err
}
