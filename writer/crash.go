package writer

import "os"

// CrashHook returns a hook (see WithHook) that kills the process with
// SIGKILL when a commit reaches point ("data-written",
// "manifests-written", "metadata-written" or "committed"): crash tests
// run a server with it to prove that a crash anywhere in a commit leaves
// the table readable and only orphan files behind. An empty point gives
// a nil hook.
func CrashHook(point string) func(string) error {
	if point == "" {
		return nil
	}
	return func(at string) error {
		if at == point {
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Kill() // SIGKILL on Unix
			}
			select {} // the signal is on its way; never return into the commit
		}
		return nil
	}
}
