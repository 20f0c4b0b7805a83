package rules

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// The detectors, each described once, by the detector itself.
//
// A detector lives in one file of package analyze/guard: its settings
// type, its defaults, its checks, the fields its per-tool override takes,
// and its logic. That file registers the settings here (RegisterDetector)
// when the program starts, because this package sits below the guard and
// cannot name the guard's types. Everything in this package that names
// detectors is derived from the registrations: DetectorNames, strict
// loading and the defaults a user gets by naming a detector (load.go),
// validation (validate.go), the keys Set accepts and refuses and
// SettableKeys (set.go), the shorthand's hints, and the effective rules
// `loopgate rules print` writes. The schema's two per-detector places,
// detectors.NAME and tools.SEL.NAME, are Go structs built from the
// registrations (reflect.StructOf) that the reflection-driven loader,
// printer and Set walk like any other part of the schema.
//
// A program that loads rules must import analyze/guard (directly or not);
// without it no detector is registered and a rules file naming one is
// refused as naming an unknown key.

// Detector describes one detector's settings (T, a struct with yaml tags
// whose first keys are enabled, reset, only and except).
type Detector[T any] struct {
	// Name is the detector's key under detectors: and under a tool entry.
	Name string
	// Rank places the detector in the evaluation order, lower first:
	// among verdicts of equal strength the first detector's wins.
	Rank int
	// Place places its key in the schema, lower first: the order `rules
	// print` writes detectors and per-tool overrides in (kept apart from
	// Rank so that a new detector changes no printed rules).
	Place int
	// Overrides are the fields tools.SEL.NAME takes (of Override's).
	Overrides []string
	// Shorthand: tools.SEL.steer_at and block_at set this detector's
	// thresholds.
	Shorthand bool
	// ReadsResultText: the detector reads a result's text beyond its hash
	// and failed flag (so a live hook must keep it).
	ReadsResultText bool
	// ReadsText: the detector reads the model's text, not its calls
	// (Guard.Text, Guard.Message): a replay must keep the responses' text
	// for it (Detectors.TextReaders).
	ReadsText bool
	// Defaults fills in settings just made (Enabled already set): what a
	// user gets by merely naming the detector.
	Defaults func(*T)
	// Normalize fills in settings a file left empty, after loading.
	Normalize func(*T)
	// Check validates the settings beyond their types and the common keys
	// (reset, only, except), at "detectors.NAME".
	Check func(c Check, at string, p *T) error
}

// detectorSpec is a registration with its type erased.
type detectorSpec struct {
	name            string
	rank, place     int
	settings        reflect.Type
	overrides       []string
	shorthand       bool
	readsResultText bool
	readsText       bool
	defaults        func(any)
	normalize       func(any)
	check           func(c Check, at string, p any) error
}

var (
	// detectorTable holds the registrations in evaluation order (Rank),
	// schemaOrder in schema order (Place).
	detectorTable []*detectorSpec
	schemaOrder   []*detectorSpec
	// detectorByName and detectorByType index them.
	detectorByName = map[string]*detectorSpec{}
	detectorByType = map[reflect.Type]*detectorSpec{}
	// DetectorNames lists the detectors in evaluation order.
	DetectorNames []string
	// schemaBuilt is set once the schema's structs were built from the
	// registrations; a registration after that is refused.
	schemaBuilt bool
)

// commonFields are the settings every detector has, first and in this
// order.
var commonFields = []string{"Enabled", "Reset", "Only", "Except"}

// RegisterDetector adds a detector's settings to the schema. It is called
// from package-level variable declarations of analyze/guard, before any
// rules are loaded; a bad description (a name or rank or place taken, a
// settings type without the common keys) is a mistake in the program,
// refused when it starts.
func RegisterDetector[T any](d Detector[T]) {
	t := reflect.TypeOf((*T)(nil)).Elem()
	s := &detectorSpec{name: d.Name, rank: d.Rank, place: d.Place, settings: t, overrides: d.Overrides,
		shorthand: d.Shorthand, readsResultText: d.ReadsResultText, readsText: d.ReadsText}
	if d.Defaults != nil {
		s.defaults = func(p any) { d.Defaults(p.(*T)) }
	}
	if d.Normalize != nil {
		s.normalize = func(p any) { d.Normalize(p.(*T)) }
	}
	if d.Check != nil {
		s.check = func(c Check, at string, p any) error { return d.Check(c, at, p.(*T)) }
	}
	if err := addDetector(s); err != nil {
		panic(err)
	}
}

func addDetector(s *detectorSpec) error {
	switch {
	case schemaBuilt:
		return fmt.Errorf("rules: detector %q registered after rules were used", s.name)
	case s.name == "" || detectorByName[s.name] != nil:
		return fmt.Errorf("rules: detector %q has no name or is registered twice", s.name)
	case s.settings.Kind() != reflect.Struct:
		return fmt.Errorf("rules: the settings of detector %q are not a struct", s.name)
	}
	for i, common := range commonFields {
		if s.settings.NumField() <= i || s.settings.Field(i).Name != common {
			return fmt.Errorf("rules: the settings of detector %q do not start with %s", s.name, strings.Join(commonFields, ", "))
		}
	}
	for _, o := range detectorTable {
		if o.rank == s.rank || o.place == s.place {
			return fmt.Errorf("rules: detectors %q and %q share a rank or a place", o.name, s.name)
		}
	}
	for _, f := range s.overrides {
		if _, ok := overrideFieldIndex[f]; !ok {
			return fmt.Errorf("rules: detector %q takes an override field %q that Override has not", s.name, f)
		}
	}
	detectorByName[s.name] = s
	detectorByType[s.settings] = s
	detectorTable = insertBy(detectorTable, s, func(x *detectorSpec) int { return x.rank })
	schemaOrder = insertBy(schemaOrder, s, func(x *detectorSpec) int { return x.place })
	DetectorNames = DetectorNames[:0]
	for _, x := range detectorTable {
		DetectorNames = append(DetectorNames, x.name)
	}
	return nil
}

func insertBy(list []*detectorSpec, s *detectorSpec, key func(*detectorSpec) int) []*detectorSpec {
	i, _ := slices.BinarySearchFunc(list, key(s), func(x *detectorSpec, k int) int { return key(x) - k })
	return slices.Insert(list, i, s)
}

// overrideFieldIndex maps Override's yaml keys to its fields.
var _, overrideFieldIndex = fieldsOf(reflect.TypeOf(Override{}))

// Detectors holds the detectors' settings by name, each a pointer to the
// detector's settings struct; a detector not in the map is off. Its YAML
// form is a mapping in schema order (detectorsView).
type Detectors map[string]any

// TextReaders names the enabled detectors that read the model's text
// (registered with ReadsText), in evaluation order.
func (d Detectors) TextReaders() []string {
	var names []string
	for _, s := range detectorTable {
		if !s.readsText {
			continue
		}
		if p := reflect.ValueOf(d[s.name]); p.IsValid() && !p.IsNil() && p.Elem().Field(0).Bool() {
			names = append(names, s.name)
		}
	}
	return names
}

// ReadsText says the rules (or their unattended variant) enable a
// detector that reads the model's text: a replay must then keep the
// responses' text.
func (r *Rules) ReadsText() bool {
	if r == nil {
		return false
	}
	if len(r.Detectors.TextReaders()) > 0 {
		return true
	}
	if r.Unattended.Rules != "" && r.Unattended.Rules != r.Name {
		u, err := Preset(r.Unattended.Rules)
		return err == nil && len(u.Detectors.TextReaders()) > 0
	}
	return false
}

// Settings returns the named detector's settings (a pointer to its
// settings struct), or nil when the rules do not name it.
func (d Detectors) Settings(name string) any { return d[name] }

// The schema's per-detector structs, built once from the registrations:
// detectorsView has a field *T per detector (yaml "NAME,omitempty"),
// toolView Tool's own keys and then an *Override per detector, both in
// schema order.
var (
	viewsOnce     sync.Once
	detectorsView reflect.Type
	toolView      reflect.Type
	toolOwn       int // Tool's own fields: the first toolOwn of toolView
)

var (
	detectorsType = reflect.TypeOf(Detectors(nil))
	toolType      = reflect.TypeOf(Tool{})
	overridePtr   = reflect.TypeOf((*Override)(nil))
)

func buildViews() {
	viewsOnce.Do(func() {
		schemaBuilt = true
		var dets, tools []reflect.StructField
		for i := 0; i < toolType.NumField(); i++ {
			f := toolType.Field(i)
			if name, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); f.IsExported() && name != "-" && name != "" {
				tools = append(tools, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
			}
		}
		toolOwn = len(tools)
		for i, s := range schemaOrder {
			tag := reflect.StructTag(`yaml:"` + s.name + `,omitempty"`)
			dets = append(dets, reflect.StructField{Name: fmt.Sprintf("D%d", i), Type: reflect.PointerTo(s.settings), Tag: tag})
			tools = append(tools, reflect.StructField{Name: fmt.Sprintf("D%d", i), Type: overridePtr, Tag: tag})
		}
		detectorsView = reflect.StructOf(dets)
		toolView = reflect.StructOf(tools)
	})
}

// schemaType returns the struct type the loader, printer and Set walk for
// a type of the schema: the built struct for Detectors and Tool, t itself
// for the rest.
func schemaType(t reflect.Type) reflect.Type {
	switch t {
	case detectorsType:
		buildViews()
		return detectorsView
	case toolType:
		buildViews()
		return toolView
	}
	return t
}

// isView reports whether the schema walks t through a built struct
// (Detectors, Tool).
func isView(t reflect.Type) bool { return t == detectorsType || t == toolType }

// viewOf returns the built struct for v (a Detectors or an addressable
// Tool), filled from it.
func viewOf(v reflect.Value) reflect.Value {
	if v.Type() == detectorsType {
		return v.Interface().(Detectors).view()
	}
	return v.Addr().Interface().(*Tool).view()
}

// setFromView sets v (as for viewOf) from its built struct.
func setFromView(v, view reflect.Value) {
	if v.Type() == detectorsType {
		v.Set(reflect.ValueOf(detectorsFrom(view)))
		return
	}
	v.Addr().Interface().(*Tool).setFromView(view)
}

// view returns the detectors as a pointer to a detectorsView.
func (d Detectors) view() reflect.Value {
	buildViews()
	v := reflect.New(detectorsView)
	for i, s := range schemaOrder {
		if p, ok := d[s.name]; ok && p != nil {
			v.Elem().Field(i).Set(reflect.ValueOf(p))
		}
	}
	return v
}

// detectorsFrom reads a detectorsView back (nil when no detector is set).
func detectorsFrom(v reflect.Value) Detectors {
	var d Detectors
	for i, s := range schemaOrder {
		if f := v.Elem().Field(i); !f.IsNil() {
			if d == nil {
				d = Detectors{}
			}
			d[s.name] = f.Interface()
		}
	}
	return d
}

// MarshalYAML writes the detectors in schema order.
func (d Detectors) MarshalYAML() (any, error) { return d.view().Interface(), nil }

// view returns the tool entry as a pointer to a toolView.
func (t *Tool) view() reflect.Value {
	buildViews()
	v := reflect.New(toolView)
	tv := reflect.ValueOf(t).Elem()
	for i, j := 0, 0; i < toolType.NumField() && j < toolOwn; i++ {
		if toolType.Field(i).Name == toolView.Field(j).Name {
			v.Elem().Field(j).Set(tv.Field(i))
			j++
		}
	}
	for i, s := range schemaOrder {
		if o := t.Overrides[s.name]; o != nil {
			v.Elem().Field(toolOwn + i).Set(reflect.ValueOf(o))
		}
	}
	return v
}

// setFromView sets the tool entry from a toolView.
func (t *Tool) setFromView(v reflect.Value) {
	tv := reflect.ValueOf(t).Elem()
	for j := 0; j < toolOwn; j++ {
		tv.FieldByName(toolView.Field(j).Name).Set(v.Elem().Field(j))
	}
	t.Overrides = nil
	for i, s := range schemaOrder {
		if f := v.Elem().Field(toolOwn + i); !f.IsNil() {
			if t.Overrides == nil {
				t.Overrides = map[string]*Override{}
			}
			t.Overrides[s.name] = f.Interface().(*Override)
		}
	}
}

// MarshalYAML writes the tool entry: its own keys, then its overrides in
// schema order.
func (t Tool) MarshalYAML() (any, error) { return t.view().Interface(), nil }

// IsDetector reports whether name is a detector's name.
func IsDetector(name string) bool { return detectorByName[name] != nil }

// SetsByShorthand reports whether a tool entry's steer_at and block_at
// (tools.SEL.steer_at) set the named detector's thresholds.
func SetsByShorthand(detector string) bool {
	s := detectorByName[detector]
	return s != nil && s.shorthand
}

// OverrideFields lists the fields a tool entry's override of the named
// detector takes (tools.SEL.NAME.FIELD).
func OverrideFields(detector string) []string {
	if s := detectorByName[detector]; s != nil {
		return s.overrides
	}
	return nil
}

// ReadsResultText reports whether a detector the rules enable reads a
// result's text beyond its hash and failed flag.
func (r *Rules) ReadsResultText() bool {
	for _, s := range detectorTable {
		if s.readsResultText && r.Detectors.enabled(s.name) {
			return true
		}
	}
	return false
}

// ReadsWholeResults reports whether the rules' failure or hash reading of
// results (anything but loopgate's own) reads every result's text whole.
func (r *Rules) ReadsWholeResults() bool {
	plain := func(s string) bool { return s == "" || s == "loopgate" }
	return !plain(r.Results.Failure) || !plain(r.Results.Hash)
}

// enabled reports whether the rules turn the named detector on.
func (d Detectors) enabled(name string) bool {
	p := d[name]
	return p != nil && reflect.ValueOf(p).Elem().Field(0).Bool()
}

// common returns the settings' keys every detector has.
func common(settings any) (reset string, only, except []string) {
	v := reflect.ValueOf(settings).Elem()
	return v.Field(1).String(), v.Field(2).Interface().([]string), v.Field(3).Interface().([]string)
}

// defaultSettings fills in a detector's settings just made (v, a pointer
// to its settings struct) with its registration's defaults; other structs
// are left as they are.
func defaultSettings(v reflect.Value) {
	if s := detectorByType[v.Type().Elem()]; s != nil && s.defaults != nil {
		s.defaults(v.Interface())
	}
}

// normalizeDetectors fills in what each detector's settings left empty.
func (d Detectors) normalize() {
	for _, s := range detectorTable {
		if p := d[s.name]; p != nil && s.normalize != nil {
			s.normalize(p)
		}
	}
}

// overrides lists a tool entry's per-detector overrides, in evaluation
// order.
func (t *Tool) overrides() []namedOverride {
	out := make([]namedOverride, 0, len(detectorTable))
	for _, s := range detectorTable {
		out = append(out, namedOverride{s.name, t.Overrides[s.name]})
	}
	return out
}

type namedOverride struct {
	det string
	o   *Override
}

// Override returns the tool entry's override for a detector, or nil.
func (t *Tool) Override(detector string) *Override { return t.Overrides[detector] }

// detectors validates every detector the rules name: the common keys,
// then the detector's own checks.
func (v *validator) detectors() error {
	for _, s := range detectorTable {
		p := v.r.Detectors[s.name]
		if p == nil {
			continue
		}
		at := "detectors." + s.name
		reset, only, except := common(p)
		if err := v.detectorCommon(at, reset, only, except); err != nil {
			return err
		}
		if s.check != nil {
			if err := s.check(Check{v}, at, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// Check is what a detector's checks use to report a problem with its
// settings: each method returns an error naming the file and line of the
// value at the dotted path it is given (detectors.NAME.KEY), or nil.
type Check struct{ v *validator }

// Fail reports the value at path at as wrong, with a message.
func (c Check) Fail(at, format string, a ...any) error { return c.v.fail(at, format, a...) }

// Key checks a detector's key setting (rules or plain).
func (c Check) Key(at, key string) error { return c.v.detectorKey(at, key) }

// Detectors checks a list of detector names (blocks_as_failures).
func (c Check) Detectors(at string, names []string) error { return c.v.detectorList(at, names) }

// Selectors checks a list of tool selectors.
func (c Check) Selectors(at string, sels []string) error { return c.v.selectors(at, sels) }

// SteerBelowBlock checks that a steer comes before a block.
func (c Check) SteerBelowBlock(at string, steer, block int) error {
	return c.v.steerBelowBlock(at, steer, block)
}

// SteerBelowHalt checks that a steer comes before a halt.
func (c Check) SteerBelowHalt(at string, steer, halt int) error {
	return c.v.steerBelowHalt(at, steer, halt)
}

// shorthandNames names the detectors the tool shorthand sets, for
// messages: "repeat or consecutive".
func shorthandNames(prefix, or string) string {
	var names []string
	for _, s := range detectorTable {
		if s.shorthand {
			names = append(names, prefix+s.name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " " + or + " " + names[len(names)-1]
}
