package rules

import (
	"embed"
	"fmt"
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

// parsed presets, parsed once; Preset hands out clones.
var (
	presetOnce  sync.Once
	presetCache map[string]*Rules
	presetErr   error
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
	presetOnce.Do(loadPresets)
	if presetErr != nil {
		return nil, presetErr
	}
	return presetCache[name].Clone(), nil
}

func loadPresets() {
	presetCache = map[string]*Rules{}
	// A preset may extend another (hermes-strict extends hermes, which
	// extends hermes-2026-06), so a preset whose base is not parsed yet
	// waits for a later pass; Parse calls back into Preset for extends,
	// which must not re-enter the Once: parseWith handles that.
	pending := append([]string(nil), presetOrder...)
	for len(pending) > 0 {
		var later []string
		for _, name := range pending {
			data, err := presetFS.ReadFile("presets/" + name + ".yaml")
			if err != nil {
				presetErr = err
				return
			}
			waiting := false
			r, err := parseWith(data, "preset:"+name, func(base string) (*Rules, error) {
				if b, ok := presetCache[base]; ok {
					return b.Clone(), nil
				}
				if isPreset(base) {
					waiting = true
				}
				return nil, unknownPreset(base)
			})
			if waiting {
				later = append(later, name)
				continue
			}
			if err != nil {
				presetErr = err
				return
			}
			presetCache[name] = r
		}
		if len(later) == len(pending) {
			presetErr = fmt.Errorf("presets extend each other in a circle: %s", strings.Join(later, ", "))
			return
		}
		pending = later
	}
}
