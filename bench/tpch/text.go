package tpch

// textPoolSize is the length of the text every comment is cut from
// (dbgen's is 300 MB; see the package comment).
const textPoolSize = 16 << 20

// textPoolTag seeds the text pool's stream.
const textPoolTag = 100

// buildTextPool generates the pseudo-text of 4.2.2.14: sentences of the
// grammar, separated by single spaces, until size bytes.
func buildTextPool(seed uint64, size int) []byte {
	r := rowRNG(seed, textPoolTag, 0)
	pool := make([]byte, 0, size+256)
	for len(pool) < size {
		pool = appendSentence(pool, &r)
		pool = append(pool, ' ')
	}
	return pool[:size]
}

func appendWord(b []byte, w string) []byte {
	if len(b) > 0 && b[len(b)-1] != ' ' {
		b = append(b, ' ')
	}
	return append(b, w...)
}

func appendSentence(b []byte, r *rng) []byte {
	for _, part := range grammar.draw(r) {
		switch part {
		case 'N':
			b = appendNounPhrase(b, r)
		case 'V':
			b = appendVerbPhrase(b, r)
		case 'P':
			b = appendWord(b, prepositions.draw(r))
			b = appendWord(b, "the")
			b = appendNounPhrase(b, r)
		case 'T':
			b = append(b, terminators.draw(r)...) // no space before it
		}
	}
	return b
}

func appendNounPhrase(b []byte, r *rng) []byte {
	for _, part := range nounPhrases.draw(r) {
		switch part {
		case 'N':
			b = appendWord(b, nouns.draw(r))
		case 'J':
			b = appendWord(b, adjectives.draw(r))
		case 'D':
			b = appendWord(b, adverbs.draw(r))
		case ',':
			b = append(b, ',')
		}
	}
	return b
}

func appendVerbPhrase(b []byte, r *rng) []byte {
	for _, part := range verbPhrases.draw(r) {
		switch part {
		case 'V':
			b = appendWord(b, verbs.draw(r))
		case 'X':
			b = appendWord(b, auxiliaries.draw(r))
		case 'D':
			b = appendWord(b, adverbs.draw(r))
		}
	}
	return b
}

// text returns a text string [lo, hi] (4.2.2.10) as dbgen makes it: a
// piece of the pool of a length uniform in [lo, hi], at a uniform offset.
// The result aliases the pool.
func (g *Generator) text(r *rng, lo, hi int) []byte {
	n := int(r.intn(int64(lo), int64(hi)))
	off := int(r.intn(0, int64(len(g.pool)-n)))
	return g.pool[off : off+n]
}
