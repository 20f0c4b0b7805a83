package rules

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// presetFS holds the presets: one commented YAML file per guard design.
//
//go:embed presets/*.yaml
var presetFS embed.FS

// presetOrder is the stable order PresetNames gives: loopgate's own, the
// seed designs, then the guards agents ship.
var presetOrder = []string{
	"loopgate", "nanobot", "hermes", "hermes-strict", "hermes-2026-06", "hermes-strict-2026-06",
	"hermes-dedup", "hermes-breaker", "pi-loopguard", "attractor",
	"gemini-cli", "qwen-code", "opencode", "goose", "roo-code", "kilo-code", "openhands", "cline",
	"claude-code",
}

// Preset groups, as compare shows them.
const (
	GroupOwn     = "loopgate's own"
	GroupSeeds   = "seed designs"
	GroupShipped = "shipped guards"
)

// presetGroup is each preset's group (PresetGroup).
var presetGroup = map[string]string{
	"loopgate": GroupOwn,
	"nanobot":  GroupSeeds, "hermes": GroupSeeds, "hermes-strict": GroupSeeds,
	"hermes-2026-06": GroupSeeds, "hermes-strict-2026-06": GroupSeeds, "hermes-dedup": GroupSeeds,
	"hermes-breaker": GroupSeeds, "pi-loopguard": GroupSeeds, "attractor": GroupSeeds,
	"gemini-cli": GroupShipped, "qwen-code": GroupShipped, "opencode": GroupShipped,
	"goose": GroupShipped, "roo-code": GroupShipped, "kilo-code": GroupShipped,
	"openhands": GroupShipped, "cline": GroupShipped, "claude-code": GroupShipped,
}

// PresetGroup returns the group of a preset (GroupOwn, GroupSeeds or
// GroupShipped), or "" for a name that is no preset (a user's rules file).
func PresetGroup(name string) string { return presetGroup[name] }

// PresetGroups lists the groups in the order compare shows them.
func PresetGroups() []string { return []string{GroupOwn, GroupSeeds, GroupShipped} }

// The presets parsed so far; Preset hands out clones. A preset is parsed
// the first time it is asked for, with the presets it extends and no
// other: the live hook runs once per tool call and needs one preset.
var (
	presetMu    sync.Mutex
	presetCache = map[string]*Rules{}
)

// PresetNames lists the presets in a stable order.
func PresetNames() []string { return append([]string(nil), presetOrder...) }

// PresetText returns a preset's YAML file as written (with its comments).
func PresetText(name string) ([]byte, error) {
	if !isPreset(name) {
		return nil, unknownPreset(name)
	}
	return presetFS.ReadFile("presets/" + name + ".yaml")
}

func isPreset(name string) bool {
	for _, p := range presetOrder {
		if p == name {
			return true
		}
	}
	return false
}

func unknownPreset(name string) error {
	return fmt.Errorf("unknown preset %q; presets: %s", name, strings.Join(presetOrder, ", "))
}

// Preset returns a fresh copy of a preset's rules.
func Preset(name string) (*Rules, error) {
	if !isPreset(name) {
		return nil, unknownPreset(name)
	}
	presetMu.Lock()
	defer presetMu.Unlock()
	r, err := loadPreset(name, nil)
	if err != nil {
		return nil, err
	}
	return r.Clone(), nil
}

// loadPreset parses a preset once, and first the presets it extends
// (hermes-strict extends hermes, which extends hermes-2026-06). chain
// holds the presets whose parsing is under way, so that presets extending
// each other in a circle are an error. The caller holds presetMu.
func loadPreset(name string, chain []string) (*Rules, error) {
	if r, ok := presetCache[name]; ok {
		return r, nil
	}
	if slices.Contains(chain, name) {
		return nil, fmt.Errorf("presets extend each other in a circle: %s", strings.Join(append(chain, name), " -> "))
	}
	data, err := presetFS.ReadFile("presets/" + name + ".yaml")
	if err != nil {
		return nil, err
	}
	r, err := parseWith(data, "preset:"+name, func(base string) (*Rules, error) {
		if !isPreset(base) {
			return nil, unknownPreset(base)
		}
		b, err := loadPreset(base, append(chain, name))
		if err != nil {
			return nil, err
		}
		return b.Clone(), nil
	})
	if err != nil {
		return nil, err
	}
	presetCache[name] = r
	return r, nil
}
