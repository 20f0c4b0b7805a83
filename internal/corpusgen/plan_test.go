package corpusgen

import "testing"

// TestPlanLargeFiles checks the size plan of a 1 GiB corpus without
// writing it: exactly LargeFiles files over 50 MB, none over MaxFileBytes,
// and the sizes adding up to TotalBytes.
func TestPlanLargeFiles(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		wantLarge int
	}{
		{"1 GiB with three large files", Config{Seed: 1, TotalBytes: 1 << 30, MaxFileBytes: 64 << 20, LargeFiles: 3}, 3},
		{"too small for large files", Config{Seed: 1, TotalBytes: 60 << 20, MaxFileBytes: 64 << 20, LargeFiles: 3}, 0},
		{"files capped below 50 MB", Config{Seed: 2, TotalBytes: 1 << 30, MaxFileBytes: 8 << 20, LargeFiles: 3}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			if err := cfg.normalize(); err != nil {
				t.Fatal(err)
			}
			plans := planFiles(cfg)
			var sum int64
			large, small := 0, 0
			for _, p := range plans {
				sum += p.target
				if p.target > LargeFileBytes {
					large++
				}
				if p.target > cfg.MaxFileBytes {
					t.Errorf("%s planned at %d bytes, over MaxFileBytes", p.path, p.target)
				}
				if p.target < 20_000 {
					small++
				}
			}
			if large != tt.wantLarge {
				t.Errorf("%d files over 50 MB, want %d", large, tt.wantLarge)
			}
			if sum != cfg.TotalBytes {
				t.Errorf("plans add up to %d bytes, want %d", sum, cfg.TotalBytes)
			}
			if small*2 < len(plans) {
				t.Errorf("%d of %d files under 20 KB, want most files small", small, len(plans))
			}
		})
	}
}
