package remote

// The one option validator of foreign servers, user mappings, foreign
// tables and their columns (postgres_fdw_validator in option.c), driven by
// the connection code's own list of libpq keywords (libpqOptions) and
// postgres_fdw's own options below, with PostgreSQL 15's messages and
// SQLSTATEs.

import (
	"math"
	"strconv"
	"strings"

	"github.com/pgfed/pgfed/pgerr"
)

// OptionContext is where an OPTIONS list is given.
type OptionContext uint8

const (
	ServerOptions OptionContext = iota
	UserMappingOptions
	TableOptions
	ColumnOptions
)

// optionKind is how an option's value is checked.
type optionKind uint8

const (
	optString optionKind = iota
	optBool
	optPositiveInt
	optNonNegReal
	optSampling
)

// fdwOption is one of postgres_fdw's own options.
type fdwOption struct {
	name     string
	contexts []OptionContext
	kind     optionKind
}

// fdwOptions are postgres_fdw's own options, in its order (which its hints
// list), for the contexts they are valid in.
var fdwOptions = []fdwOption{
	{"schema_name", []OptionContext{TableOptions}, optString},
	{"table_name", []OptionContext{TableOptions}, optString},
	{"column_name", []OptionContext{ColumnOptions}, optString},
	{"use_remote_estimate", []OptionContext{ServerOptions, TableOptions}, optBool},
	{"fdw_startup_cost", []OptionContext{ServerOptions}, optNonNegReal},
	{"fdw_tuple_cost", []OptionContext{ServerOptions}, optNonNegReal},
	{"extensions", []OptionContext{ServerOptions}, optString},
	{"updatable", []OptionContext{ServerOptions, TableOptions}, optBool},
	{"truncatable", []OptionContext{ServerOptions, TableOptions}, optBool},
	{"fetch_size", []OptionContext{ServerOptions, TableOptions}, optPositiveInt},
	{"batch_size", []OptionContext{ServerOptions, TableOptions}, optPositiveInt},
	{"async_capable", []OptionContext{ServerOptions, TableOptions}, optBool},
	{"parallel_commit", []OptionContext{ServerOptions}, optBool},
	{"keep_connections", []OptionContext{ServerOptions}, optBool},
	{"password_required", []OptionContext{UserMappingOptions}, optBool},
	{"sslcert", []OptionContext{UserMappingOptions}, optString},
	{"sslkey", []OptionContext{UserMappingOptions}, optString},
	// PostgreSQL 16's.
	{"parallel_abort", []OptionContext{ServerOptions}, optBool},
	{"analyze_sampling", []OptionContext{ServerOptions, TableOptions}, optSampling},
	// pgfed's own: read the partitions of this server over up to N
	// connections that share one exported snapshot (async Append).
	{"async_connections", []OptionContext{ServerOptions}, optPositiveInt},
}

// validOptions lists the options of a context in postgres_fdw's order:
// its own first, then libpq's (user mappings take libpq's role and
// secrets, servers the rest).
func validOptions(ctx OptionContext) []string {
	var out []string
	add := func(name string) {
		for _, n := range out {
			if n == name {
				return
			}
		}
		out = append(out, name)
	}
	if ctx == ServerOptions || ctx == UserMappingOptions {
		for _, o := range libpqOptions {
			if o.userMappingOnly == (ctx == UserMappingOptions) {
				add(o.name)
			}
		}
	}
	for _, o := range fdwOptions {
		for _, c := range o.contexts {
			if c == ctx {
				add(o.name)
			}
		}
	}
	return out
}

// ValidateOption checks one option given in context ctx.
func ValidateOption(ctx OptionContext, name, value string) error {
	kind, ok := optionKindIn(ctx, name)
	if !ok {
		valid := validOptions(ctx)
		e := pgerr.New(pgerr.FDWInvalidOptionName, "invalid option %q", name)
		if len(valid) == 0 {
			return e.WithHint("There are no valid options in this context.")
		}
		return e.WithHint("Valid options in this context are: %s", strings.Join(valid, ", "))
	}
	switch kind {
	case optBool:
		if _, ok := ParseBool(value); !ok {
			return pgerr.New(pgerr.SyntaxError, "%s requires a Boolean value", name)
		}
	case optPositiveInt:
		n, ok := ParseInt(value)
		if !ok {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for integer option %q: %s", name, value)
		}
		if n <= 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "%q must be an integer value greater than zero", name)
		}
	case optNonNegReal:
		f, ok := ParseReal(value)
		if !ok {
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for floating point option %q: %s", name, value)
		}
		if f < 0 {
			return pgerr.New(pgerr.InvalidParameterValue, "%q must be a floating point value greater than or equal to zero", name)
		}
	case optSampling:
		switch strings.ToLower(value) {
		case "off", "auto", "random", "system", "bernoulli":
		default:
			return pgerr.New(pgerr.InvalidParameterValue, "invalid value for string option %q: %s", name, value)
		}
	}
	return nil
}

// optionKindIn returns how name is checked in ctx; ok is false when the
// option is not valid there.
func optionKindIn(ctx OptionContext, name string) (optionKind, bool) {
	for _, o := range fdwOptions {
		if o.name == name {
			for _, c := range o.contexts {
				if c == ctx {
					return o.kind, true
				}
			}
		}
	}
	if o, ok := connOptions[name]; ok && (ctx == ServerOptions || ctx == UserMappingOptions) && o.userMappingOnly == (ctx == UserMappingOptions) {
		return optString, true
	}
	return 0, false
}

// ParseBool reads a Boolean option as PostgreSQL's defGetBoolean does:
// true, false, on, off (any case), 1 or 0.
func ParseBool(v string) (value, ok bool) {
	switch strings.ToLower(v) {
	case "true", "on", "1":
		return true, true
	case "false", "off", "0":
		return false, true
	}
	return false, false
}

// ParseReal reads a floating-point option as PostgreSQL's parse_real does.
func ParseReal(v string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f, err == nil && !math.IsNaN(f)
}

// ParseInt reads an integer option as PostgreSQL's parse_int does:
// surrounding spaces allowed, hexadecimal with 0x, and a number with a
// fraction or exponent rounded; it must fit in an int.
func ParseInt(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	n, err := strconv.ParseInt(v, 10, 32)
	if err == nil {
		return n, true
	}
	if h, ok := strings.CutPrefix(strings.ToLower(v), "0x"); ok {
		n, err := strconv.ParseInt(h, 16, 32)
		return n, err == nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > math.MaxInt32 {
		return 0, false
	}
	return int64(math.RoundToEven(f)), true
}
