package mapping

import "strings"

// valueText lists enum values that mean the same, one meaning per line: `meaning: spelling |
// spelling …` in English, German, French, Spanish, Portuguese, Italian and Dutch. A source
// value and an option match when they share a meaning.
const valueText = `
yes: yes | y | true | t | 1 | ja | j | oui | o | si | s | sim | vero | verdadero | verdadeiro | wahr | vrai | waar | x | on | enabled | active yes | checked
no: no | n | false | f | 0 | nein | non | nao | falso | falsch | faux | onwaar | nee | off | disabled | unchecked
male: male | m | man | men | mann | mannlich | homme | h | hombre | masculino | maschio | uomo | mannelijk | herr | mr | masculine
female: female | f | w | woman | women | frau | weiblich | femme | mujer | femenino | feminino | femmina | donna | vrouw | vrouwelijk | v | mrs | ms | feminine
diverse: diverse | divers | non binary | nonbinary | non-binary | nb | x | other gender | anders | no binario | nao binario | non binaire
undisclosed: prefer not to say | not disclosed | undisclosed | unknown | keine angabe | ne souhaite pas repondre | prefiero no decirlo | prefiro nao dizer | preferisco non dirlo | zeg ik liever niet | not specified | unspecified
active: active | aktiv | actif | active | activo | ativo | attivo | actief | enabled | live | published | current | a
inactive: inactive | inaktiv | inactif | inactivo | inativo | inattivo | inactief | disabled
terminated: terminated | ausgeschieden | gekundigt | desligado | demitido | licencie | sorti | despedido | baja | cessato | uit dienst | former | left | separated | t
on_leave: on leave | leave | leave of absence | beurlaubt | elternzeit | karenz | afastado | licenca | en conge | conge | excedencia | de baja | in congedo | aspettativa | met verlof | verlof | loa
draft: draft | entwurf | brouillon | borrador | rascunho | bozza | concept
archived: archived | archiviert | archive | archivado | arquivado | archiviato | gearchiveerd
sent: sent | versendet | gesendet | verschickt | envoye | envoyee | enviado | enviada | inviato | inviata | verzonden | verstuurd | issued | open
paid: paid | bezahlt | beglichen | paye | payee | pagado | pagada | pago | paga | pagato | pagata | betaald | settled
pending: pending | offen | ausstehend | en attente | pendiente | pendente | in sospeso | in attesa | in afwachting | openstaand | awaiting payment | unpaid
overdue: overdue | uberfallig | ueberfaellig | en retard | vencido | vencida | atrasado | scaduto | scaduta | achterstallig | verlopen | past due | late
cancelled: cancelled | canceled | storniert | annule | annulee | cancelado | cancelada | annullato | annullata | geannuleerd | voided | void | voided invoice
refunded: refunded | erstattet | zuruckerstattet | rembourse | reembolsado | reembolsada | rimborsato | terugbetaald
partially_refunded: partially refunded | teilweise erstattet | partiellement rembourse | parcialmente reembolsado | parzialmente rimborsato | gedeeltelijk terugbetaald
fulfilled: fulfilled | shipped | versandt | verschickt | geliefert | expedie | livre | enviado | entregado | enviada | spedito | consegnato | verzonden | geleverd | delivered | complete | completed
unfulfilled: unfulfilled | not shipped | nicht versandt | offen versand | non expedie | no enviado | pendiente de envio | nao enviado | non spedito | niet verzonden | unshipped | not fulfilled
partial: partial | partially fulfilled | partially shipped | teilweise versandt | teilweise geliefert | partiellement expedie | parcialmente enviado | parzialmente spedito | gedeeltelijk verzonden | partly shipped
full_time: full time | fulltime | full-time | ft | vollzeit | temps plein | temps complet | jornada completa | tiempo completo | tempo integral | tempo pieno | voltijd | regular full time
part_time: part time | parttime | part-time | pt | teilzeit | temps partiel | media jornada | tiempo parcial | jornada parcial | meio periodo | tempo parcial | tempo parziale | deeltijd | regular part time
contractor: contractor | contract | freelancer | freelance | freiberufler | auftragnehmer | independant | prestataire | autonomo | contratista | autonomo | pj | collaboratore | consulente | zzp | zzp er | zelfstandige | contingent worker | consultant
intern: intern | internship | praktikant | praktikantin | praktikum | stagiaire | stage | becario | becaria | practicas | estagiario | estagiaria | estagio | stagista | tirocinante | stagiair | werkstudent | trainee | apprentice | working student
temporary: temporary | temp | befristet | aushilfe | interimaire | cdd | temporal | temporario | temporaneo | tempo determinato | uitzendkracht | tijdelijk | seasonal | fixed term
web: web | website | webseite | homepage | site web | sitio web | pagina web | sito web | online | internet | organic search | web form | webform
referral: referral | referrals | empfehlung | weiterempfehlung | recommandation | parrainage | referencia | recomendacion | indicacao | indicacoes | referenza | passaparola | doorverwijzing | aanbeveling | word of mouth | customer referral
event: event | trade show | tradeshow | messe | veranstaltung | salon | evenement | feria | evento | fiera | beurs | evenement nl | conference | seminar | webinar
partner: partner | partners | partenaire | socio | parceiro | partner referral | reseller
cold_call: cold call | cold calling | kaltakquise | telefonakquise | prospection telephonique | demarchage | llamada en frio | ligacao fria | chiamata a freddo | koude acquisitie | outbound call
other: other | others | sonstiges | sonstige | andere | autre | autres | otro | otros | outro | outros | altro | altri | overig | overige | misc | miscellaneous
customer: customer | kunde | client | cliente | klant | account customer
prospect: prospect | interessent | prospecto | prospetto | potential customer | lead prospect
competitor: competitor | wettbewerber | konkurrent | concurrent | competidor | concorrente | concurrente
subscriber: subscriber | abonnent | abonne | suscriptor | assinante | iscritto | abbonato | abonnee | subscribed
lead: lead | leads | interessent lead
mql: mql | marketing qualified lead | marketingqualifiedlead | marketing lead
sql: sql | sales qualified lead | salesqualifiedlead | sales lead
opportunity: opportunity | opportunite | oportunidad | oportunidade | opportunita | verkaufschance | kans | deal
evangelist: evangelist
debit: debit | debito | debit card | soll | lastschrift | af | dr | debe | dare | debet | withdrawal | outgoing | ausgang | sortie
credit: credit | credito | haben | gutschrift | bij | cr | haber | avere | deposit | incoming | eingang | entree
card: card | credit card | kreditkarte | carte | carte bancaire | carte de credit | tarjeta | tarjeta de credito | cartao | cartao de credito | carta | carta di credito | creditcard | debit card | visa | mastercard | amex | ec karte | girocard | shopify payments | stripe
paypal: paypal | paypal express checkout | paypal express | pay pal
bank_transfer: bank transfer | transfer | uberweisung | vorkasse | virement | virement bancaire | transferencia | transferencia bancaria | bonifico | bonifico bancario | transferencia bancaria pt | overboeking | bankoverschrijving | bank deposit | wire | wire transfer | sepa | prepayment
invoice: invoice | rechnung | auf rechnung | facture | factura | fattura | fatura | factuur | op rekening | kauf auf rechnung | pay by invoice | net terms
cash_on_delivery: cash on delivery | cod | nachnahme | contre remboursement | contra reembolso | pago contra reembolso | contrassegno | pagamento na entrega | rembours | cash on delivery cod | remboursement
software: software | software it | computer software | information technology | it | information technology services | saas | it services | informatique | informatica | tecnologia | technologie
manufacturing: manufacturing | maschinenbau | fertigung | industrie | produktion | machinery | industrial | fabrication | manufactura | fabricacion | manifattura | industria | producao | productie | industrial automation
retail: retail | einzelhandel | handel | commerce de detail | commerce | detail | minorista | comercio minorista | vendita al dettaglio | dettaglio | varejo | comercio varejista | detailhandel | retail trade | e commerce | ecommerce
finance: finance | financial services | finanzdienstleistungen | banken | bank | banking | banque | services financiers | banca | servicios financieros | servizi finanziari | servicos financeiros | financiele dienstverlening | insurance | versicherung | financial
healthcare: healthcare | health care | gesundheitswesen | gesundheit | sante | salud | sanidad | sanita | saude | gezondheidszorg | hospital health care | hospital & health care | medical | medizin | pharma | pharmaceuticals
education: education | bildung | ausbildung | education management | higher education | enseignement | educacion | istruzione | educacao | onderwijs | school | university
qualification: qualification | qualified | qualifizierung | qualifiziert | qualification stage
proposal: proposal | proposal made | proposal price quote | angebot | offre | propuesta | proposta | offerte | quote | quotation
negotiation: negotiation | negotiations started | negotiation review | verhandlung | negociation | negociacion | negociacao | negoziazione | onderhandeling
closed_won: closed won | won | gewonnen | gagne | ganado | ganho | vinto | gewonnen nl | win
closed_lost: closed lost | lost | verloren | perdu | perdido | perso | verloren nl | loss
`

// currencyCodes lists ISO 4217 codes seen in business files.
var currencyCodes = setOf(`EUR USD GBP CHF JPY CNY CAD AUD NZD SEK NOK DKK PLN CZK HUF RON BGN HRK RUB TRY INR BRL MXN ARS CLP COP PEN ZAR SGD HKD KRW TWD THB MYR IDR PHP VND AED SAR ILS EGP NGN KES`)

func setOf(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// countryText lists countries: ISO alpha-2 and alpha-3 codes, then names in English,
// German, French, Spanish, Portuguese, Italian and Dutch (and common short forms).
const countryText = `
DE|DEU|Germany|Deutschland|Allemagne|Alemania|Alemanha|Germania|Duitsland|BRD
AT|AUT|Austria|Österreich|Autriche|Áustria|Oostenrijk
CH|CHE|Switzerland|Schweiz|Suisse|Suiza|Suíça|Svizzera|Zwitserland
FR|FRA|France|Frankreich|Francia|França|Frankrijk
ES|ESP|Spain|Spanien|Espagne|España|Espanha|Spagna|Spanje
PT|PRT|Portugal|Portogallo
IT|ITA|Italy|Italien|Italie|Italia|Itália|Italië
NL|NLD|Netherlands|Niederlande|Pays-Bas|Países Bajos|Países Baixos|Paesi Bassi|Nederland|Holland|The Netherlands
BE|BEL|Belgium|Belgien|Belgique|Bélgica|Belgio|België
LU|LUX|Luxembourg|Luxemburg|Luxemburgo|Lussemburgo
GB|GBR|United Kingdom|Vereinigtes Königreich|Royaume-Uni|Reino Unido|Regno Unito|Verenigd Koninkrijk|UK|Great Britain|Großbritannien|Grande-Bretagne|Gran Bretaña|England|Britain
IE|IRL|Ireland|Irland|Irlande|Irlanda|Ierland
US|USA|United States|United States of America|Vereinigte Staaten|États-Unis|Estados Unidos|Stati Uniti|Verenigde Staten|America|U.S.|U.S.A.|US of A
CA|CAN|Canada|Kanada|Canadá
MX|MEX|Mexico|Mexiko|Mexique|México|Messico
BR|BRA|Brazil|Brasilien|Brésil|Brasil|Brasile|Brazilië
AR|ARG|Argentina|Argentinien|Argentine|Argentinië
CL|CHL|Chile|Chili|Cile
CO|COL|Colombia|Kolumbien|Colombie|Colômbia
PE|PER|Peru|Pérou|Perú
DK|DNK|Denmark|Dänemark|Danemark|Dinamarca|Danimarca|Denemarken
SE|SWE|Sweden|Schweden|Suède|Suecia|Suécia|Svezia|Zweden
NO|NOR|Norway|Norwegen|Norvège|Noruega|Norvegia|Noorwegen
FI|FIN|Finland|Finnland|Finlande|Finlandia|Finlândia
PL|POL|Poland|Polen|Pologne|Polonia|Polônia|Polónia
CZ|CZE|Czech Republic|Czechia|Tschechien|Tchéquie|República Checa|Chéquia|Repubblica Ceca|Tsjechië
HU|HUN|Hungary|Ungarn|Hongrie|Hungría|Hungria|Ungheria|Hongarije
GR|GRC|Greece|Griechenland|Grèce|Grecia|Grécia|Griekenland
TR|TUR|Turkey|Türkei|Turquie|Turquía|Turquia|Turchia|Turkije|Türkiye
RU|RUS|Russia|Russland|Russie|Rusia|Rússia|Russia|Rusland
UA|UKR|Ukraine|Ucrania|Ucrânia|Ucraina|Oekraïne
RO|ROU|Romania|Rumänien|Roumanie|Rumania|Roménia|Roemenië
HR|HRV|Croatia|Kroatien|Croatie|Croacia|Croácia|Croazia|Kroatië
IN|IND|India|Indien|Inde|Índia
CN|CHN|China|Chine|Cina
JP|JPN|Japan|Japon|Japón|Japão|Giappone
KR|KOR|South Korea|Südkorea|Corée du Sud|Corea del Sur|Coreia do Sul|Corea del Sud|Zuid-Korea|Korea
AU|AUS|Australia|Australien|Australie|Austrália|Australië
NZ|NZL|New Zealand|Neuseeland|Nouvelle-Zélande|Nueva Zelanda|Nova Zelândia|Nuova Zelanda|Nieuw-Zeeland
ZA|ZAF|South Africa|Südafrika|Afrique du Sud|Sudáfrica|África do Sul|Sudafrica|Zuid-Afrika
IL|ISR|Israel|Israël|Israele
AE|ARE|United Arab Emirates|Vereinigte Arabische Emirate|Émirats arabes unis|Emiratos Árabes Unidos|Emirados Árabes Unidos|Emirati Arabi Uniti|Verenigde Arabische Emiraten|UAE
SG|SGP|Singapore|Singapur|Singapour|Singapura
`

// usStateText lists US states and DC by postal code and name.
const usStateText = `AL Alabama|AK Alaska|AZ Arizona|AR Arkansas|CA California|CO Colorado|CT Connecticut|DE Delaware|DC District of Columbia|FL Florida|GA Georgia|HI Hawaii|ID Idaho|IL Illinois|IN Indiana|IA Iowa|KS Kansas|KY Kentucky|LA Louisiana|ME Maine|MD Maryland|MA Massachusetts|MI Michigan|MN Minnesota|MS Mississippi|MO Missouri|MT Montana|NE Nebraska|NV Nevada|NH New Hampshire|NJ New Jersey|NM New Mexico|NY New York|NC North Carolina|ND North Dakota|OH Ohio|OK Oklahoma|OR Oregon|PA Pennsylvania|RI Rhode Island|SC South Carolina|SD South Dakota|TN Tennessee|TX Texas|UT Utah|VT Vermont|VA Virginia|WA Washington|WV West Virginia|WI Wisconsin|WY Wyoming`

var (
	valueMeaning = map[string][]string{} // normalised spelling → meanings
	countryCode  = map[string]string{}   // normalised name or code → ISO alpha-2
)

func init() {
	for _, line := range lines(valueText) {
		id, spellings, _ := strings.Cut(line, ":")
		for _, s := range strings.Split(spellings, "|") {
			n := Normalize(s)
			if n != "" && !contains(valueMeaning[n], id) {
				valueMeaning[n] = append(valueMeaning[n], id)
			}
		}
	}
	for _, line := range lines(countryText) {
		names := strings.Split(line, "|")
		for _, n := range names {
			for _, v := range umlautVariants(n) {
				countryCode[Normalize(v)] = names[0]
			}
		}
	}
	for _, st := range strings.Split(usStateText, "|") {
		code, name, _ := strings.Cut(st, " ")
		m := "us_" + strings.ToLower(code)
		for _, s := range []string{code, name} {
			if n := Normalize(s); !contains(valueMeaning[n], m) {
				valueMeaning[n] = append(valueMeaning[n], m)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// countryOf gives the ISO alpha-2 code a country name or code stands for, or "".
func countryOf(v string) string {
	return countryCode[Normalize(v)]
}
