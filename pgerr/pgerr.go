package pgerr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
)

// SQLSTATE codes used across pgfed. Names follow PostgreSQL's errcodes.txt.
const (
	SuccessfulCompletion         = "00000"
	FeatureNotSupported          = "0A000"
	CardinalityViolation         = "21000"
	DataException                = "22000"
	StringDataRightTruncation    = "22001"
	NumericValueOutOfRange       = "22003"
	NullValueNotAllowed          = "22004"
	InvalidDatetimeFormat        = "22007"
	DatetimeFieldOverflow        = "22008"
	InvalidParameterValue        = "22023"
	DivisionByZero               = "22012"
	InvalidTextRepresentation    = "22P02"
	InvalidEscapeSequence        = "22025"
	CharacterNotInRepertoire     = "22021"
	SubstringError               = "22011"
	BadCopyFileFormat            = "22P04"
	InvalidArgumentForPowerFunc  = "2201F"
	InvalidArgumentForLog        = "2201E"
	ArraySubscriptError          = "2202E"
	InvalidRowCountInLimit       = "2201W"
	InvalidRowCountInOffset      = "2201X"
	CheckViolation               = "23514"
	NotNullViolation             = "23502"
	InvalidTransactionState      = "25000"
	InvalidSchemaName            = "3F000"
	SyntaxError                  = "42601"
	InsufficientPrivilege        = "42501"
	UndefinedColumn              = "42703"
	UndefinedTable               = "42P01"
	UndefinedFunction            = "42883"
	UndefinedObject              = "42704"
	UndefinedSchema              = "3F000"
	DuplicateTable               = "42P07"
	DuplicateSchema              = "42P06"
	ReservedName                 = "42939"
	DuplicateColumn              = "42701"
	DuplicateObject              = "42710"
	AmbiguousColumn              = "42702"
	AmbiguousFunction            = "42725"
	AmbiguousAlias               = "42P09"
	WindowingError               = "42P20"
	DuplicateAlias               = "42712"
	DatatypeMismatch             = "42804"
	CannotCoerce                 = "42846"
	GroupingError                = "42803"
	InvalidColumnReference       = "42P10"
	WrongObjectType              = "42809"
	InvalidName                  = "42602"
	ObjectNotInPrerequisiteState = "55000"
	InvalidTableDefinition       = "42P16"
	InvalidObjectDefinition      = "42P17"
	InvalidColumnDefinition      = "42611"
	IndeterminateDatatype        = "42P18"
	TooManyColumns               = "54011"
	ProgramLimitExceeded         = "54000"
	OutOfMemory                  = "53200"
	StatementTooComplex          = "54001"
	QueryCanceled                = "57014"
	ObjectInUse                  = "55006"
	DependentObjectsStillExist   = "2BP01"
	UndefinedFile                = "58P01"
	IOError                      = "58030"
	InternalError                = "XX000"
	ConnectionException          = "08000"
	ConnectionFailure            = "08006"
	ConnectionDoesNotExist       = "08003"
	SQLClientUnableToEstablish   = "08001"
	FDWError                     = "HV000"
	FDWOptionNameNotFound        = "HV00D"
	FDWInvalidOptionName         = "HV00D"
	InvalidCursorName            = "34000"
	ActiveSQLTransaction         = "25001"
	NoActiveSQLTransaction       = "25P01"
	InFailedSQLTransaction       = "25P02"
	ReadOnlySQLTransaction       = "25006"
	SerializationFailure         = "40001"
	DeadlockDetected             = "40P01"
	LockNotAvailable             = "55P03"

	InvalidSavepointSpecification = "3B001"
)

// Error is a PostgreSQL-style error. Position is the 1-based character
// offset of the error in the statement text (0 = none), as PostgreSQL's
// ErrorResponse 'P' field.
type Error struct {
	Code     string
	Message  string
	Detail   string
	Hint     string
	Context  string
	Position int
	Severity string // "ERROR" unless set
}

func (e *Error) Error() string { return e.Message }

// SQLState returns the five-character SQLSTATE code.
func (e *Error) SQLState() string { return e.Code }

// New returns an error with the given code and formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetail returns a copy of e with Detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	c := *e
	c.Detail = fmt.Sprintf(format, args...)
	return &c
}

// WithHint returns a copy of e with Hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Hint = fmt.Sprintf(format, args...)
	return &c
}

// WithPosition returns a copy of e with the cursor position set (1-based).
func (e *Error) WithPosition(pos int) *Error {
	c := *e
	c.Position = pos
	return &c
}

// NotSupported reports a construct pgfed refuses, naming it.
func NotSupported(construct string) *Error {
	return &Error{Code: FeatureNotSupported, Message: construct + " is not supported"}
}

// Canceled is the error PostgreSQL reports for a cancel request.
func Canceled() *Error {
	return &Error{Code: QueryCanceled, Message: "canceling statement due to user request"}
}

// Timeout is the error PostgreSQL reports when statement_timeout expires.
func Timeout() *Error {
	return &Error{Code: QueryCanceled, Message: "canceling statement due to statement timeout"}
}

// Internal reports a bug. It is what a recovered panic becomes.
func Internal(format string, args ...any) *Error {
	return &Error{Code: InternalError, Message: fmt.Sprintf(format, args...)}
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var pe *Error
	if errors.As(err, &pe) {
		return pe, true
	}
	return nil, false
}

// Code returns err's SQLSTATE, or XX000 for an error that is not an *Error.
func Code(err error) string {
	if err == nil {
		return SuccessfulCompletion
	}
	if pe, ok := As(err); ok {
		return pe.Code
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return QueryCanceled
	}
	return InternalError
}

// Wrap converts any error into an *Error: *Error values pass through;
// context cancellation becomes 57014; anything else becomes XX000.
func Wrap(err error) *Error {
	if err == nil {
		return nil
	}
	if pe, ok := As(err); ok {
		return pe
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return Timeout()
	}
	if errors.Is(err, context.Canceled) {
		return Canceled()
	}
	return &Error{Code: InternalError, Message: err.Error()}
}

// Strerror spells an OS error as C's strerror does ("No such file or
// directory"), as PostgreSQL's messages quote it.
func Strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return err.Error()
}
