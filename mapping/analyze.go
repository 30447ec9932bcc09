package mapping

import (
	"fmt"
	"strings"
)

// reading is one interpretation of a name as a set of terms (concept ids and English words),
// with how likely the interpretation is and the notes that explain how it was reached.
type reading struct {
	terms  []string
	ids    []int32 // terms interned by the scorer of a Suggest call
	factor float64
	notes  []Reason
}

// token is a stretch of a name that was recognised as one unit.
type token struct {
	raw     string     // the normalised words it covers
	concept string     // set when the words name a concept directly
	alts    [][]string // English readings from the lexicon (or the word itself)
	solo    []bool     // alternatives that apply only when the token is the whole name
	note    *Reason    // how the lexicon read it, nil when it is plain English; its text has a %q for the reading
}

const maxReadings = 8

// analyze reads a header, key or label into its likely readings, the most likely first.
func analyze(name string) []reading {
	words := dict.join(dict.segment(strings.Fields(Normalize(name))))
	kept := words[:0:0]
	for _, w := range words {
		if !dict.stop[w] {
			kept = append(kept, w)
		}
	}
	if len(kept) == 0 {
		kept = words
	}
	toks := dict.tokens(kept)
	var out []reading
	var walk func(i int, acc []string, factor float64, notes []Reason)
	walk = func(i int, acc []string, factor float64, notes []Reason) {
		if len(out) >= maxReadings {
			return
		}
		if i == len(toks) {
			out = append(out, dict.conceptPass(acc, factor, notes))
			return
		}
		t := toks[i]
		if t.concept != "" {
			if t.note != nil {
				notes = append(notes[:len(notes):len(notes)], *t.note)
			}
			walk(i+1, append(acc, t.concept), factor, notes)
			return
		}
		for j, alt := range t.alts {
			if j < len(t.solo) && t.solo[j] && len(toks) > 1 {
				continue
			}
			f, n := factor, notes
			if j > 0 {
				f *= 0.9
			}
			if t.note != nil {
				n = append(n[:len(n):len(n)], t.note.with("to", strings.Join(alt, " ")))
			}
			walk(i+1, append(acc[:len(acc):len(acc)], alt...), f, n)
		}
	}
	walk(0, nil, 1, nil)
	return out
}

// join glues split spellings back together when the glued word is known and a part is not
// ("e mail" → "email", "mw st" → "mwst", "f name" → "fname").
func (d *dictionary) join(ws []string) []string {
	out := make([]string, 0, len(ws))
	for i := 0; i < len(ws); i++ {
		joined := false
		for k := 3; k >= 2 && !joined; k-- {
			if i+k > len(ws) {
				continue
			}
			parts := ws[i : i+k]
			glued := strings.Join(parts, "")
			if !d.known(glued) || !needsJoin(d, parts) {
				continue
			}
			out = append(out, glued)
			i += k - 1
			joined = true
		}
		if !joined {
			out = append(out, ws[i])
		}
	}
	return out
}

func needsJoin(d *dictionary, parts []string) bool {
	for _, p := range parts {
		if len(p) <= 2 && !isDigits(p) || !d.known(p) {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// tokens cuts words into concept phrases, lexicon phrases, compounds and plain words,
// longest match first.
func (d *dictionary) tokens(ws []string) []token {
	var out []token
	for i := 0; i < len(ws); {
		n := 1
		t := token{raw: ws[i], alts: [][]string{{ws[i]}}}
		for k := min(max(d.conceptMax, d.lexMax), len(ws)-i); k >= 1; k-- {
			run := ws[i : i+k]
			raw := strings.Join(run, " ")
			// An English phrase wins over a translation of the same words, but single English
			// words are left to conceptPass, which sees them next to translated neighbours.
			e, isLex := d.lexEntry(raw)
			if k > 1 || isLex {
				if c, ok := d.concept(run); ok && k <= d.conceptMax {
					t, n = token{raw: raw, concept: c, note: conceptNote(raw, c, e, isLex)}, k
					break
				}
			}
			if isLex {
				t, n = token{raw: raw, alts: e.alts, solo: e.solo, note: noteFor(e.lang, raw)}, k
				break
			}
			if c, ok := d.concept(stemAll(run)); ok && k > 1 && k <= d.conceptMax {
				t, n = token{raw: raw, concept: c, note: conceptNote(raw, c, e, false)}, k
				break
			}
		}
		if n == 1 && t.concept == "" && t.note == nil && !d.known(ws[i]) {
			if parts, ok := d.compound(ws[i], 0); ok {
				t = d.compoundToken(ws[i], parts)
			}
		}
		out = append(out, t)
		i += n
	}
	return out
}

func (d *dictionary) lexEntry(raw string) (lexEntry, bool) {
	if e, ok := d.lex[raw]; ok {
		return e, true
	}
	if !strings.Contains(raw, " ") {
		if s := stem(raw); s != raw {
			e, ok := d.lex[s]
			return e, ok
		}
	}
	return lexEntry{}, false
}

// conceptNote explains a phrase read directly as a concept, or is nil when the phrase is
// the concept's own name.
func conceptNote(raw, concept string, e lexEntry, isLex bool) *Reason {
	name := strings.ReplaceAll(concept, "_", " ")
	if raw == name || stem(raw) == name {
		return nil
	}
	r := synonymNote(raw, name)
	if isLex && e.lang == "abbreviation" {
		r = because(ReasonAbbreviation, fmt.Sprintf("abbreviation: %q → %s", raw, name), "from", raw, "to", name)
	}
	return &r
}

func synonymNote(raw, name string) Reason {
	return because(ReasonSynonym, fmt.Sprintf("synonym: %q → %s", raw, name), "from", raw, "to", name)
}

// langCodes are the lexicons' languages as language codes (a reason's "lang").
var langCodes = map[string]string{"German": "de", "French": "fr", "Spanish": "es", "Portuguese": "pt", "Italian": "it", "Dutch": "nl",
	"Japanese": "jp", "Korean": "kr", "Chinese": "zh", "Traditional Chinese": "zh-hant", "Thai": "th", "Vietnamese": "vi", "Indonesian": "id", "Malay": "ms",
	"Turkish": "tr", "Polish": "pl", "Swedish": "sv"}

// noteFor is how a lexicon's entry for raw was read; its text waits for the reading.
func noteFor(lang, raw string) *Reason {
	var r Reason
	switch lang {
	case "abbreviation":
		r = because(ReasonAbbreviation, fmt.Sprintf("abbreviation: %q → %%q", raw), "from", raw)
	case "synonym":
		r = because(ReasonSynonym, fmt.Sprintf("synonym: %q → %%q", raw), "from", raw)
	default:
		r = because(ReasonLanguage, fmt.Sprintf("%s: %q → %%q", lang, raw), "lang", langCodes[lang], "from", raw)
	}
	return &r
}

// compound splits an unknown word into known parts, German and Dutch style, allowing the
// linking letters of "Zahlungsstatus" or "Personeelsnummer".
func (d *dictionary) compound(w string, depth int) ([]string, bool) {
	if len(w) < 7 || depth > 2 || !isASCII(w) {
		return nil, false
	}
	for i := 3; i <= len(w)-3; i++ {
		head, tail := w[:i], w[i:]
		if !d.compoundPart(tail) {
			continue
		}
		for _, h := range []string{head, strings.TrimSuffix(head, "s"), strings.TrimSuffix(head, "n"), strings.TrimSuffix(head, "en"), strings.TrimSuffix(head, "e")} {
			if len(h) >= 3 && d.compoundPart(h) {
				return []string{h, tail}, true
			}
		}
		if parts, ok := d.compound(head, depth+1); ok {
			return append(parts, tail), true
		}
	}
	return nil, false
}

// compoundPart accepts known words of four letters or more, and three-letter words only
// when the lexicon lists them as they are ("ort", "typ").
func (d *dictionary) compoundPart(w string) bool {
	if len(w) == 3 {
		_, ok := d.lex[w]
		return ok
	}
	return len(w) > 3 && d.known(w)
}

func (d *dictionary) compoundToken(w string, parts []string) token {
	var ws []string
	for _, p := range parts {
		if e, ok := d.lexEntry(p); ok {
			ws = append(ws, e.alts[0]...)
		} else {
			ws = append(ws, p)
		}
	}
	note := because(ReasonCompound, fmt.Sprintf("compound: %q = %q → %%q", w, strings.Join(parts, "+")), "word", w, "parts", strings.Join(parts, "+"))
	return token{raw: w, alts: [][]string{ws}, note: &note}
}

// conceptPass turns runs of English words into concepts, longest first, and stems the rest.
func (d *dictionary) conceptPass(ws []string, factor float64, notes []Reason) reading {
	r := reading{factor: factor, notes: notes}
	seen := map[string]bool{}
	add := func(t string) {
		if !seen[t] && !d.stop[t] {
			seen[t] = true
			r.terms = append(r.terms, t)
		}
	}
	for i := 0; i < len(ws); {
		n := 1
		if d.isConcept(ws[i]) && strings.Contains(ws[i], "_") {
			add(ws[i])
			i++
			continue
		}
		term := stem(ws[i])
		for k := min(d.conceptMax, len(ws)-i); k >= 1; k-- {
			run := stemAll(ws[i : i+k])
			if c, ok := d.concept(run); ok {
				term, n = c, k
				if k > 1 || c != run[0] {
					phrase := strings.Join(ws[i:i+k], " ")
					if phrase != strings.ReplaceAll(c, "_", " ") {
						r.notes = append(r.notes, synonymNote(phrase, strings.ReplaceAll(c, "_", " ")))
					}
				}
				break
			}
		}
		add(term)
		i += n
	}
	return r
}
