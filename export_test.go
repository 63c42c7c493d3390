package pgfed

// TableBatches is the number of batches the current version of the local
// table schema.name holds (-1 when there is none): what a scan of it
// walks. Tests check with it that small writes are merged.
func TableBatches(db *DB, schema, name string) int {
	t := db.def.s.Env().Catalog.Lookup(schema, name)
	if t == nil {
		return -1
	}
	return t.NumBatches()
}
