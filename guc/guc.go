// Package guc holds the settings (PostgreSQL's GUCs) of pgfed: the one
// list of every setting with its type, default, range and display, and a
// session's values, with PostgreSQL's names, value syntax, SHOW format and
// errors.
//
// Contract: every setting has exactly one definition here; readers (the
// planner, the engine, the commands) ask a Settings for a typed value and
// never keep defaults of their own. Values are stored normalized (on/off,
// milliseconds, kB), so Get returns the same text for every spelling a
// SET accepted. A Settings is a session's and is used by one goroutine at
// a time. It takes part in the session's transactions (OnXact, OnSubXact):
// a SET inside a transaction that aborts is undone, and SET LOCAL lasts
// until the end of the transaction.
package guc

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/pgfed/pgfed/pgerr"
	"github.com/pgfed/pgfed/xact"
)

type settingKind uint8

const (
	boolSetting settingKind = iota
	msSetting               // a duration in milliseconds (statement_timeout)
	stringSetting
	intSetting
	realSetting // a floating-point number (costs)
	sizeSetting // a memory size stored in kB; a bare number counts unitKB kB
	enumSetting // one of enum
)

type settingDef struct {
	kind settingKind
	def  string
	// fixed: only the default value is accepted (pgfed's session is UTC).
	fixed bool
	// min and max bound int and real settings (both zero: unbounded).
	min, max float64
	// enum lists the values of an enumSetting.
	enum []string
	// unitKB is a sizeSetting's unit: 1 (kB) or 8 (blocks); its min and
	// max count that unit, as PostgreSQL's do.
	unitKB int64
}

var settingDefs = map[string]settingDef{
	"enable_seqscan":                 {kind: boolSetting, def: "on"},
	"enable_indexscan":               {kind: boolSetting, def: "on"},
	"enable_bitmapscan":              {kind: boolSetting, def: "on"},
	"enable_sort":                    {kind: boolSetting, def: "on"},
	"enable_hashagg":                 {kind: boolSetting, def: "on"},
	"enable_hashjoin":                {kind: boolSetting, def: "on"},
	"enable_mergejoin":               {kind: boolSetting, def: "on"},
	"enable_nestloop":                {kind: boolSetting, def: "on"},
	"enable_material":                {kind: boolSetting, def: "on"},
	"enable_incremental_sort":        {kind: boolSetting, def: "on"},
	"enable_partition_pruning":       {kind: boolSetting, def: "on"},
	"enable_partitionwise_aggregate": {kind: boolSetting, def: "off"},
	"enable_partitionwise_join":      {kind: boolSetting, def: "off"},
	"enable_parallel_append":         {kind: boolSetting, def: "on"},
	"enable_parallel_hash":           {kind: boolSetting, def: "on"},
	"enable_async_append":            {kind: boolSetting, def: "on"},
	// Parallel query, with PostgreSQL's defaults and ranges.
	"max_parallel_workers_per_gather": {kind: intSetting, def: "2", min: 0, max: 1024},
	"max_parallel_workers":            {kind: intSetting, def: "8", min: 0, max: 1024},
	"parallel_leader_participation":   {kind: boolSetting, def: "on"},
	"parallel_setup_cost":             {kind: realSetting, def: "1000", min: 0, max: math.MaxFloat64},
	"parallel_tuple_cost":             {kind: realSetting, def: "0.1", min: 0, max: math.MaxFloat64},
	"min_parallel_table_scan_size":    {kind: sizeSetting, def: "8192", unitKB: 8, max: 715827882},
	"debug_parallel_query":            {kind: enumSetting, def: "off", enum: []string{"off", "on", "regress"}},
	// pgfed.pushdown off keeps all work on foreign tables local, to check
	// that pushdown changes nothing but speed.
	"pgfed.pushdown": {kind: boolSetting, def: "on"},
	// pgfed.pass_join_keys: a hash join with a small local build side
	// sends its keys to the foreign scan it probes (planner/key_passing.go).
	"pgfed.pass_join_keys": {kind: boolSetting, def: "on"},
	// pgfed.runtime_filters: hash joins filter their probe side's scans
	// by their build keys (planner/runtime_filter.go).
	"pgfed.runtime_filters": {kind: boolSetting, def: "on"},
	// pgfed.two_phase_commit commits a transaction that wrote on several
	// remote servers atomically (remote/twophase.go).
	"pgfed.two_phase_commit": {kind: boolSetting, def: "off"},
	"statement_timeout":      {kind: msSetting, def: "0"},
	"lock_timeout":           {kind: msSetting, def: "0"},
	// pgfed finds a cycle of waits when it forms; the setting is accepted
	// for scripts that set it.
	"deadlock_timeout": {kind: msSetting, def: "1000"},
	// The current transaction's characteristics and the defaults new ones
	// take (the engine sets the current ones when a transaction starts).
	"default_transaction_isolation": {kind: enumSetting, def: "read committed", enum: isolationLevels},
	"transaction_isolation":         {kind: enumSetting, def: "read committed", enum: isolationLevels},
	"default_transaction_read_only": {kind: boolSetting, def: "off"},
	"transaction_read_only":         {kind: boolSetting, def: "off"},
	"search_path":                   {kind: stringSetting, def: `"$user", public`},
	"timezone":                      {kind: stringSetting, def: "UTC", fixed: true},
	"datestyle":                     {kind: stringSetting, def: "ISO, MDY", fixed: true},
	"intervalstyle":                 {kind: stringSetting, def: "postgres", fixed: true},
	"extra_float_digits":            {kind: intSetting, def: "1", fixed: true},
	"client_encoding":               {kind: stringSetting, def: "UTF8", fixed: true},
	"server_encoding":               {kind: stringSetting, def: "UTF8", fixed: true},
	"application_name":              {kind: stringSetting, def: ""},
	// work_mem bounds each sort and hash table of a statement before it
	// spills to temporary files; hash tables may use hash_mem_multiplier
	// times as much.
	"work_mem":            {kind: sizeSetting, def: "4096", unitKB: 1, min: 64, max: math.MaxInt32},
	"hash_mem_multiplier": {kind: realSetting, def: "2", min: 1, max: 1000},
	// pgfed.memory_limit bounds one statement's working memory (0: only
	// the engine's limit, pgfed.WithMemoryLimit): 53200 beyond it.
	"pgfed.memory_limit":          {kind: sizeSetting, def: "0", unitKB: 1, max: math.MaxInt32},
	"standard_conforming_strings": {kind: boolSetting, def: "on", fixed: true},
}

// isolationLevels are the values of the isolation settings, in
// PostgreSQL's order (its hint lists them so).
var isolationLevels = []string{"serializable", "repeatable read", "read committed", "read uncommitted"}

// displayNames are the spellings SHOW uses for mixed-case settings.
var displayNames = map[string]string{"timezone": "TimeZone", "datestyle": "DateStyle", "intervalstyle": "IntervalStyle"}

// Settings is one session's values.
type Settings struct {
	vals map[string]string
	// undo holds, oldest first, the values the current transaction
	// changed, to restore them at Abort (and SET LOCAL's at Commit);
	// marks are where each open subtransaction's changes begin.
	undo  []change
	marks []int
	txn   *xact.Transaction // set by Follow
}

// change is one setting's value before a SET (had false: it was unset).
type change struct {
	name, old string
	had       bool
	local     bool // SET LOCAL: undone at the end of the transaction
}

// New returns settings at their defaults.
func New() *Settings { return &Settings{vals: map[string]string{}} }

// Get returns a setting's value in its stored form (the default if it was
// not SET); "" for an unknown name.
func (s *Settings) Get(name string) string {
	name = canonical(name)
	if v, ok := s.vals[name]; ok {
		return v
	}
	return settingDefs[name].def
}

// Bool returns a boolean setting.
func (s *Settings) Bool(name string) bool { return s.Get(name) == "on" }

// Int returns an integer setting (and the kB of a size, the milliseconds
// of a duration).
func (s *Settings) Int(name string) int64 {
	n, _ := strconv.ParseInt(s.Get(name), 10, 64)
	return n
}

// Real returns a floating-point setting.
func (s *Settings) Real(name string) float64 {
	f, _ := strconv.ParseFloat(s.Get(name), 64)
	return f
}

// Duration returns a duration setting.
func (s *Settings) Duration(name string) time.Duration {
	return time.Duration(s.Int(name)) * time.Millisecond
}

// aliases are older names of settings: PostgreSQL 15 calls
// debug_parallel_query force_parallel_mode.
var aliases = map[string]string{"force_parallel_mode": "debug_parallel_query"}

// canonical returns the name a setting is stored under.
func canonical(name string) string {
	if a, ok := aliases[name]; ok {
		return a
	}
	return name
}

// lookup returns a setting's definition; custom "prefix.name" settings
// are free-form strings, as in PostgreSQL.
func lookup(name string) (settingDef, error) {
	if d, ok := settingDefs[name]; ok {
		return d, nil
	}
	if strings.Contains(name, ".") {
		return settingDef{kind: stringSetting}, nil
	}
	return settingDef{}, pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
}

// Set validates and stores a value given as SET's argument text.
func (s *Settings) Set(name, value string) error { return s.set(name, value, false) }

// SetLocal is SET LOCAL: the value lasts until the end of the current
// transaction.
func (s *Settings) SetLocal(name, value string) error { return s.set(name, value, true) }

func (s *Settings) set(name, value string, local bool) error {
	name = canonical(name)
	d, err := lookup(name)
	if err != nil {
		return err
	}
	norm, err := normalize(name, d, value)
	if err != nil {
		return err
	}
	if d.fixed && !strings.EqualFold(norm, d.def) && !(name == "timezone" && strings.EqualFold(norm, "utc")) {
		return pgerr.New(pgerr.FeatureNotSupported, "pgfed supports only %s = %q", name, d.def)
	}
	s.remember(name, local)
	s.vals[name] = norm
	return nil
}

// Reset returns a setting to its default (RESET, SET ... TO DEFAULT).
func (s *Settings) Reset(name string) error {
	name = canonical(name)
	if _, err := lookup(name); err != nil {
		return err
	}
	s.remember(name, false)
	delete(s.vals, name)
	return nil
}

// ResetAll returns every setting to its default (RESET ALL).
func (s *Settings) ResetAll() {
	for name := range s.vals {
		s.remember(name, false)
	}
	clear(s.vals)
}

// Follow makes the settings take part in the transactions of t (a
// session's): SETs are undone when the transaction that made them aborts.
func (s *Settings) Follow(t *xact.Transaction) {
	s.txn = t
	t.Register(s)
}

// remember records name's current value in the undo log of the current
// transaction (outside one, a SET cannot be undone).
func (s *Settings) remember(name string, local bool) {
	if s.txn == nil || !s.txn.Active() {
		return
	}
	old, had := s.vals[name]
	s.undo = append(s.undo, change{name: name, old: old, had: had, local: local})
}

// restore undoes the changes from position from of the undo log on, the
// newest first; with localOnly, only SET LOCAL's that no later plain SET
// of the same setting overrode.
func (s *Settings) restore(from int, localOnly bool) {
	var setLater map[string]bool
	for i := len(s.undo) - 1; i >= from; i-- {
		c := s.undo[i]
		if localOnly && (!c.local || setLater[c.name]) {
			if !c.local {
				if setLater == nil {
					setLater = map[string]bool{}
				}
				setLater[c.name] = true
			}
			continue
		}
		if c.had {
			s.vals[c.name] = c.old
		} else {
			delete(s.vals, c.name)
		}
	}
	s.undo = s.undo[:from]
}

// OnXact implements xact.Callback: a transaction that aborts undoes its
// SETs; one that commits keeps them, except SET LOCAL's.
func (s *Settings) OnXact(ctx context.Context, ev xact.Event) error {
	switch ev {
	case xact.Commit:
		s.restore(0, true)
	case xact.Abort:
		s.restore(0, false)
	default:
		return nil
	}
	s.marks = s.marks[:0]
	return nil
}

// OnSubXact implements xact.SubCallback: ROLLBACK TO undoes the SETs made
// since the savepoint.
func (s *Settings) OnSubXact(ctx context.Context, ev xact.SubEvent, depth int) error {
	switch ev {
	case xact.StartSub:
		s.marks = append(s.marks, len(s.undo))
	case xact.AbortSub:
		s.restore(s.marks[depth-1], false)
		s.marks = s.marks[:depth-1]
	case xact.CommitSub:
		s.marks = s.marks[:depth-1]
	}
	return nil
}

func normalize(name string, d settingDef, v string) (string, error) {
	switch d.kind {
	case boolSetting:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "on", "true", "yes", "1", "t", "y":
			return "on", nil
		case "off", "false", "no", "0", "f", "n":
			return "off", nil
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "parameter %q requires a Boolean value", name)
	case msSetting:
		ms, err := parseMillis(v)
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
				WithHint(`Valid units for this parameter are "us", "ms", "s", "min", "h", and "d".`)
		}
		if ms < 0 || ms > 2147483647 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d ms is outside the valid range for parameter %q (0 .. 2147483647)", ms, name)
		}
		return strconv.FormatInt(ms, 10), nil
	case intSetting:
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
				WithHint("Valid values are integers.")
		}
		if (d.min != 0 || d.max != 0) && (float64(n) < d.min || float64(n) > d.max) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d is outside the valid range for parameter %q (%g .. %g)", n, name, d.min, d.max)
		}
		return strconv.Itoa(n), nil
	case realSetting:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) {
			return "", pgerr.New(pgerr.InvalidParameterValue, "parameter %q requires a numeric value", name)
		}
		if f < d.min || f > d.max {
			return "", pgerr.New(pgerr.InvalidParameterValue, "%s is outside the valid range for parameter %q (%s .. %s)", cFloat(f), name, cFloat(d.min), cFloat(d.max))
		}
		return strconv.FormatFloat(f, 'g', -1, 64), nil
	case sizeSetting:
		kb, err := parseKB(v, d.unitKB)
		if err == nil && kb/d.unitKB > math.MaxInt32 {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
				WithHint("Value exceeds integer range.")
		}
		if err != nil {
			return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
				WithHint(`Valid units for this parameter are "B", "kB", "MB", "GB", and "TB".`)
		}
		if n := kb / d.unitKB; float64(n) < d.min || float64(n) > d.max {
			unit := "kB"
			if d.unitKB == 8 {
				unit = "8kB"
			}
			return "", pgerr.New(pgerr.InvalidParameterValue, "%d %s is outside the valid range for parameter %q (%d .. %d)", n, unit, name, int64(d.min), int64(d.max))
		}
		return strconv.FormatInt(kb, 10), nil
	case enumSetting:
		low := strings.ToLower(strings.TrimSpace(v))
		switch low { // booleans are accepted for on/off enums, as in PostgreSQL
		case "true", "yes", "1":
			low = "on"
		case "false", "no", "0":
			low = "off"
		}
		for _, e := range d.enum {
			if low == e {
				return e, nil
			}
		}
		return "", pgerr.New(pgerr.InvalidParameterValue, "invalid value for parameter %q: %q", name, v).
			WithHint("Available values: %s.", strings.Join(d.enum, ", "))
	}
	return v, nil
}

// cFloat formats like C's %g, as PostgreSQL's range errors do.
func cFloat(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

// parseKB reads a memory size such as 8MB, '64kB', 0 or 1024 (a bare
// number counts units of unitKB kB) and returns it in kB, rounded.
func parseKB(v string, unitKB int64) (int64, error) {
	return parseWithUnit(v, map[string]float64{"": float64(unitKB), "B": 1.0 / 1024, "kB": 1,
		"MB": 1024, "GB": 1024 * 1024, "TB": 1024 * 1024 * 1024})
}

// parseWithUnit reads a number followed by one of units' names (possibly
// none, "") and returns it times the unit's multiplier, rounded.
func parseWithUnit(v string, units map[string]float64) (int64, error) {
	v = strings.TrimSpace(v)
	i := 0
	for i < len(v) && (v[i] >= '0' && v[i] <= '9' || v[i] == '.' || v[i] == '-') {
		i++
	}
	num, err := strconv.ParseFloat(v[:i], 64)
	if err != nil {
		return 0, err
	}
	unit := strings.TrimSpace(v[i:])
	mult, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("bad unit %q", unit)
	}
	return int64(math.Round(num * mult)), nil
}

// formatKB shows a size in kB in the largest unit that divides it, as
// SHOW does.
func formatKB(kb int64) string {
	if kb == 0 {
		return "0"
	}
	for _, u := range []struct {
		n    int64
		name string
	}{{1024 * 1024 * 1024, "TB"}, {1024 * 1024, "GB"}, {1024, "MB"}} {
		if kb%u.n == 0 {
			return strconv.FormatInt(kb/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(kb, 10) + "kB"
}

// parseMillis reads a duration such as 500, '5s', '1min', '1500ms', '2h'.
func parseMillis(v string) (int64, error) {
	return parseWithUnit(v, map[string]float64{"": 1, "ms": 1, "s": 1000, "min": 60000, "h": 3600000, "d": 86400000, "us": 0.001})
}

// Show formats a value as SHOW prints it.
func (s *Settings) Show(name string) (string, error) {
	name = canonical(name)
	d, err := lookup(name)
	if err != nil {
		return "", err
	}
	v, ok := s.vals[name]
	if !ok {
		if _, known := settingDefs[name]; !known {
			return "", pgerr.New(pgerr.UndefinedObject, "unrecognized configuration parameter %q", name)
		}
		v = d.def
	}
	switch d.kind {
	case msSetting:
		ms, _ := strconv.ParseInt(v, 10, 64)
		return formatMillis(ms), nil
	case sizeSetting:
		kb, _ := strconv.ParseInt(v, 10, 64)
		return formatKB(kb), nil
	}
	return v, nil
}

// formatMillis shows a duration in the largest unit that divides it.
func formatMillis(ms int64) string {
	if ms == 0 {
		return "0"
	}
	for _, u := range []struct {
		n    int64
		name string
	}{{86400000, "d"}, {3600000, "h"}, {60000, "min"}, {1000, "s"}} {
		if ms%u.n == 0 {
			return strconv.FormatInt(ms/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(ms, 10) + "ms"
}

// DisplayName is the column name SHOW uses for a setting (PostgreSQL
// spells some in mixed case: TimeZone).
func DisplayName(name string) string {
	if d, ok := displayNames[name]; ok {
		return d
	}
	return name
}

// StatementTimeout is statement_timeout (0: none).
func (s *Settings) StatementTimeout() time.Duration { return s.Duration("statement_timeout") }

// SearchPath returns the schemas to resolve unqualified names in.
func (s *Settings) SearchPath() []string {
	var out []string
	for _, p := range strings.Split(s.Get("search_path"), ",") {
		p = strings.TrimSpace(p)
		if p == `"$user"` || p == "$user" || p == "" {
			continue
		}
		out = append(out, strings.Trim(p, `"`))
	}
	return out
}
