package mapping

import (
	"sort"
	"strconv"
	"strings"
)

// lexEntry is one lexicon key: its English readings, most likely first, and where it comes
// from (a language, "abbreviation" or "synonym").
type lexEntry struct {
	alts [][]string
	solo []bool // the alternative applies only when the key is the whole name
	lang string
}

// dictionary is the parsed form of the dict_*.go texts.
type dictionary struct {
	lex           map[string]lexEntry
	lexMax        int                 // longest lexicon key in words
	conceptExact  map[string]string   // phrase words in order (stemmed) → concept
	conceptSorted map[string]string   // phrase words sorted → concept
	conceptMax    int                 // longest phrase in words
	conceptParts  map[string][]string // concept → the words of its name
	related       map[string]map[string]float64
	weights       map[string]float64
	stop          map[string]bool
	vocab         map[string]bool // every single word the dictionaries know
	seg           map[string]bool // lexicon words of scripts written without spaces, for segment
	segMax        int             // the longest of them, in runes
}

var dict = buildDictionary()

func buildDictionary() *dictionary {
	d := &dictionary{
		lex: map[string]lexEntry{}, conceptExact: map[string]string{}, conceptSorted: map[string]string{},
		conceptParts: map[string][]string{}, related: map[string]map[string]float64{},
		weights: map[string]float64{}, stop: map[string]bool{}, vocab: map[string]bool{}, seg: map[string]bool{},
	}
	for _, w := range strings.Fields(stopText) {
		d.stop[w] = true
	}
	d.parseConcepts(conceptText)
	for _, l := range []struct{ text, lang string }{
		{lexAbbreviations, "abbreviation"}, {lexEnglish, "synonym"}, {lexGerman, "German"},
		{lexFrench, "French"}, {lexSpanish, "Spanish"}, {lexPortuguese, "Portuguese"},
		{lexItalian, "Italian"}, {lexDutch, "Dutch"}, {lexLatinAmerica, "synonym"},
		{lexJapanese, "Japanese"}, {lexKorean, "Korean"}, {lexChinese, "Chinese"}, {lexChineseTraditional, "Traditional Chinese"}, {lexThai, "Thai"},
		{lexVietnamese, "Vietnamese"}, {lexIndonesian, "Indonesian"}, {lexMalay, "Malay"},
		{lexTurkish, "Turkish"}, {lexPolish, "Polish"}, {lexSwedish, "Swedish"},
	} {
		d.parseLexicon(l.text, l.lang)
	}
	for _, line := range lines(relatedText) {
		f := strings.Fields(line) // a ~ b weight
		w, _ := strconv.ParseFloat(f[3], 64)
		for _, p := range [][2]string{{f[0], f[2]}, {f[2], f[0]}} {
			if d.related[p[0]] == nil {
				d.related[p[0]] = map[string]float64{}
			}
			d.related[p[0]][p[1]] = w
		}
	}
	for _, line := range lines(termWeightText) {
		f := strings.Fields(line)
		d.weights[f[0]], _ = strconv.ParseFloat(f[1], 64)
	}
	return d
}

func lines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// words normalises a dictionary phrase the way headers are: folded, stop words removed.
func (d *dictionary) words(phrase string) []string {
	var out []string
	for _, w := range strings.Fields(Normalize(phrase)) {
		if !d.stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func stemAll(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = stem(w)
	}
	return out
}

func sortedKey(ws []string) string {
	s := append([]string(nil), ws...)
	sort.Strings(s)
	return strings.Join(s, " ")
}

func (d *dictionary) parseConcepts(text string) {
	for _, line := range lines(text) {
		id, phrases, _ := strings.Cut(line, ":")
		id = strings.TrimSpace(id)
		d.conceptParts[id] = strings.Split(id, "_")
		for _, p := range strings.Split(phrases, "|") {
			ws := stemAll(d.words(p))
			if len(ws) == 0 {
				continue
			}
			exact := strings.Join(ws, " ")
			if _, dup := d.conceptExact[exact]; !dup {
				d.conceptExact[exact] = id
			}
			if _, dup := d.conceptSorted[sortedKey(ws)]; !dup {
				d.conceptSorted[sortedKey(ws)] = id
			}
			d.conceptMax = max(d.conceptMax, len(ws))
			for _, w := range ws {
				d.vocab[w] = true
			}
		}
	}
}

func (d *dictionary) parseLexicon(text, lang string) {
	for _, line := range lines(text) {
		keys, outs, _ := strings.Cut(line, "=")
		var alts [][]string
		var solo []bool
		for _, o := range strings.Split(outs, ";") {
			o = strings.TrimSpace(o)
			solo = append(solo, strings.HasPrefix(o, "!"))
			ws := d.words(strings.TrimPrefix(o, "!"))
			alts = append(alts, ws)
			for _, w := range ws {
				d.vocab[stem(w)] = true
			}
		}
		for _, k := range strings.Split(keys, "|") {
			for _, variant := range umlautVariants(strings.TrimSpace(k)) {
				ws := d.words(variant)
				if len(ws) == 0 {
					continue
				}
				key := strings.Join(ws, " ")
				e, ok := d.lex[key]
				if !ok {
					e = lexEntry{lang: lang}
				}
				for i, a := range alts {
					if !containsAlt(e.alts, a) {
						e.alts = append(e.alts, a)
						e.solo = append(e.solo, solo[i])
					}
				}
				d.lex[key] = e
				d.lexMax = max(d.lexMax, len(ws))
				if len(ws) == 1 {
					d.vocab[key] = true
				}
				for _, w := range ws {
					if noSpaceScript(w) {
						d.seg[w] = true
						d.segMax = max(d.segMax, len([]rune(w)))
					}
				}
			}
		}
	}
}

func containsAlt(alts [][]string, a []string) bool {
	for _, x := range alts {
		if strings.Join(x, " ") == strings.Join(a, " ") {
			return true
		}
	}
	return false
}

// umlautVariants spells a German key both folded (ä → a) and transliterated (ä → ae), as
// exports use either.
func umlautVariants(k string) []string {
	r := strings.NewReplacer("ä", "ae", "ö", "oe", "ü", "ue", "Ä", "Ae", "Ö", "Oe", "Ü", "Ue")
	if t := r.Replace(k); t != k {
		return []string{k, t}
	}
	return []string{k}
}

// concept finds the concept a run of words names: in the order given first, then in any
// order ("code postal" is a postal code).
func (d *dictionary) concept(ws []string) (string, bool) {
	if c, ok := d.conceptExact[strings.Join(ws, " ")]; ok {
		return c, true
	}
	if len(ws) > 1 {
		if c, ok := d.conceptSorted[sortedKey(ws)]; ok {
			return c, true
		}
	}
	return "", false
}

// known reports whether a single word means something to the dictionaries.
func (d *dictionary) known(w string) bool {
	if d.vocab[w] || d.vocab[stem(w)] {
		return true
	}
	_, ok := d.lex[w]
	return ok
}

// isConcept reports whether a term is a concept id rather than a plain word.
func (d *dictionary) isConcept(t string) bool {
	_, ok := d.conceptParts[t]
	return ok
}

// weight is how much a term says on its own.
func (d *dictionary) weight(t string) float64 {
	if w, ok := d.weights[t]; ok {
		return w
	}
	if d.isConcept(t) {
		return 1
	}
	if _, err := strconv.Atoi(t); err == nil {
		return 0.15
	}
	if currencyCodes[strings.ToUpper(t)] {
		return 0.2
	}
	if len(t) <= 2 {
		return 0.4
	}
	return 0.8
}

// relation is how much term a stands for term b (1 when equal).
func (d *dictionary) relation(a, b string) float64 {
	if a == b {
		return 1
	}
	return d.related[a][b]
}

// segment cuts words of scripts written without spaces (Japanese, Chinese, Thai, Korean
// compounds) into the lexicon's words, the longest from the left ("顧客メールアドレス" →
// "顧客", "メールアドレス"); letters no word covers stay together as one word.
func (d *dictionary) segment(ws []string) []string {
	var out []string
	for _, w := range ws {
		if _, known := d.lex[w]; known || !noSpaceScript(w) {
			out = append(out, w)
			continue
		}
		rs := []rune(w)
		rest := -1 // start of letters no word covers
		for i := 0; i < len(rs); {
			n := 0
			for k := min(d.segMax, len(rs)-i); k >= 1; k-- {
				if d.seg[string(rs[i:i+k])] {
					n = k
					break
				}
			}
			if n == 0 {
				if rest < 0 {
					rest = i
				}
				i++
				continue
			}
			if rest >= 0 {
				out = append(out, string(rs[rest:i]))
				rest = -1
			}
			out = append(out, string(rs[i:i+n]))
			i += n
		}
		if rest >= 0 {
			out = append(out, string(rs[rest:]))
		}
	}
	return out
}
