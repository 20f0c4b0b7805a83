package formatcheck

// countAider: Aider's .aider.chat.history.md has no independent reading
// yet; the file is reported as such (ErrUnknown).
func countAider(data []byte) (Count, error) {
	_ = data
	return Count{}, ErrUnknown
}
