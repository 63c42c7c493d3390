package planner

import "fmt"

func fmtType(v any) string { return fmt.Sprintf("%T", v) }
