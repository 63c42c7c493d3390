package executor

import (
	"strconv"

	"github.com/pgfed/pgfed/pgerr"
)

func itoa(i int) string { return strconv.Itoa(i) }

var errStepZero = pgerr.New(pgerr.InvalidParameterValue, "step size cannot equal zero")
