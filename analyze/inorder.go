package analyze

import (
	"github.com/loopgate/loopgate/analyze/pipeline"
	"github.com/loopgate/loopgate/ingest"
)

// What ReadInOrder lets wait for the caller. Variables so that tests can
// make them small.
var (
	// inOrderLimit is how many converted sessions of the file whose turn
	// it is may wait for the caller before its worker waits: that file
	// streams, whatever its number of sessions.
	inOrderLimit = 1024
	// inOrderAhead bounds what files read ahead of their turn hold, all
	// together, in sessions plus calls: a session with --calls holds one
	// row per call. An inspect row, session or call, is 150–250 bytes
	// with its strings: 1<<16 of them is 10–16 MB.
	inOrderAhead = 1 << 16
	// inOrderWindow is how many files may be started and not yet
	// emitted. Files read ahead keep the other cores busy while a large
	// file is read: a corpus may hold files of 60 MB among a thousand
	// small ones.
	inOrderWindow = 512
)

// ReadInOrder reads files on jobs workers (0: one per core) and hands what
// they hold to the caller in the files' order, as one reader going through
// them one by one would: for each file, emit gets convert of each of its
// sessions, in order, then fileDone the file's problems, listed as a
// report lists them (FileProblems, closed). convert runs on the worker,
// in parallel, and the session it gets is not used after it returns;
// emit and fileDone run on the caller's goroutine, one call at a time.
//
// It is inspect's reader, on the pipeline a replay runs on, without
// spilling: memory is bounded by waiting instead (pipeline.Plan's
// TurnLimit and AheadLimit, in sessions plus calls, and the memory
// budget: a session is converted, and its bytes let go, once it is whole).
func ReadInOrder[T any](files []string, jobs int, in ingest.Options, convert func(*ingest.Session) T, emit func(T), fileDone func(i int, p *FileProblems)) {
	problems := make([]*FileProblems, len(files))
	plan := pipeline.Plan[T]{Jobs: jobs, Window: inOrderWindow, TurnLimit: inOrderLimit, AheadLimit: inOrderAhead, Budget: aheadSessionBytes}
	pipeline.Run(files, plan, func(i int, f *pipeline.File[T]) {
		fp := &FileProblems{}
		problems[i] = fp
		fileIn := withWorkers(in, jobs)
		fileIn.OnRead = f.Read
		ingest.ReadFile(files[i], fileIn, &ingest.Sink{
			OnSession: func(x *ingest.Session) {
				w := 1 + x.NumCalls()
				t := convert(x)
				f.Release(f.Taken())
				f.Push(t, w)
			},
			OnProblem: fp.Add,
		})
		fp.Close(files[i])
	}, func(_ int, t *T) {
		emit(*t)
	}, func(i int, _ pipeline.End) {
		fileDone(i, problems[i])
		problems[i] = nil
	})
}
