package mapping

import "strings"

// abbreviations expand single words of headers.
var abbreviations = map[string]string{
	"fname": "first name", "lname": "last name", "fn": "first name", "ln": "last name", "dob": "date of birth", "qty": "quantity",
	"zip": "postal code", "zipcode": "postal code", "postcode": "postal code", "email": "email", "e": "e", "mail": "email",
	"addr": "address", "tel": "phone", "ph": "phone", "mob": "mobile", "no": "number", "num": "number", "nr": "number",
	"amt": "amount", "desc": "description", "descr": "description", "qty.": "quantity", "dept": "department", "mgr": "manager",
	"co": "company", "org": "organization", "st": "street", "str": "street", "cty": "city", "ctry": "country", "sku": "sku",
	"id": "id", "ref": "reference", "txn": "transaction", "inv": "invoice", "acct": "account", "bal": "balance", "dt": "date",
	"yr": "year", "pct": "percent", "url": "website", "www": "website", "cc": "country code", "tz": "time zone",
}

// synonyms map many names (several languages, normalised) onto one canonical concept.
var synonyms = map[string][]string{
	"notes":          {"notes", "note", "comment", "comments", "memo", "remarks", "bemerkung", "notiz", "opmerking"},
	"credit":         {"credit", "cr", "haben", "haber", "credito"},
	"debit":          {"debit", "dr", "soll", "debe", "debito"},
	"due date":       {"due date", "falligkeitsdatum", "faelligkeitsdatum", "vervaldatum", "date d echeance", "fecha de vencimiento", "payment due"},
	"invoice date":   {"invoice date", "rechnungsdatum", "factuurdatum", "date de facture", "fecha de factura", "data fattura"},
	"customer":       {"customer", "customer name", "client", "client name", "kunde", "klant", "cliente", "kundenname"},
	"employee id":    {"employee id", "employee number", "worker id", "personalnummer", "emp id", "staff id", "employee no", "personnel number"},
	"category":       {"category", "kategorie", "categorie", "categoria", "product type", "product category"},
	"first name":     {"first name", "firstname", "given name", "forename", "vorname", "prenom", "nombre", "nome", "primeiro nome", "voornaam", "first"},
	"last name":      {"last name", "lastname", "surname", "family name", "nachname", "familienname", "nom", "nom de famille", "apellido", "apellidos", "cognome", "sobrenome", "achternaam", "last"},
	"full name":      {"full name", "contact name", "nombre completo", "nome completo", "vollstandiger name", "naam", "nom complet"},
	"email":          {"email", "e mail", "email address", "mail address", "e mail address", "correo", "correo electronico", "courriel", "adresse e mail", "posta elettronica", "e mail adresse"},
	"phone":          {"phone", "phone number", "telephone", "tel", "mobile", "cell", "cell phone", "mobile phone", "telefon", "telefonnummer", "telefono", "telephone number", "telefoon", "numero de telephone", "handy", "telefone"},
	"company":        {"company", "company name", "organization", "organisation", "business", "account name", "firma", "unternehmen", "empresa", "societe", "entreprise", "azienda", "bedrijf"},
	"address":        {"address", "street", "street address", "address line 1", "address 1", "strasse", "adresse", "direccion", "indirizzo", "endereco", "adres", "billing address"},
	"city":           {"city", "town", "stadt", "ort", "ville", "ciudad", "citta", "cidade", "stad", "plaats", "billing city"},
	"state":          {"state", "province", "region", "county", "bundesland", "provincia", "estado", "provincie", "state province"},
	"postal code":    {"postal code", "postcode", "zip", "zip code", "plz", "postleitzahl", "code postal", "codigo postal", "cap", "cep", "postcode nl", "billing zip"},
	"country":        {"country", "nation", "land", "pays", "pais", "paese", "country name", "country code", "billing country"},
	"date of birth":  {"date of birth", "birth date", "birthdate", "birthday", "geburtsdatum", "date de naissance", "fecha de nacimiento", "data di nascita", "data de nascimento", "geboortedatum"},
	"job title":      {"job title", "title", "position", "role", "berufsbezeichnung", "position title", "cargo", "poste", "functie", "designation"},
	"website":        {"website", "web site", "url", "homepage", "web", "site web", "sitio web", "webseite"},
	"amount":         {"amount", "total", "sum", "value", "betrag", "montant", "importe", "importo", "valor", "bedrag", "total amount", "grand total"},
	"price":          {"price", "unit price", "preis", "prix", "precio", "prezzo", "preco", "prijs", "cost"},
	"quantity":       {"quantity", "qty", "count", "menge", "anzahl", "quantite", "cantidad", "quantita", "quantidade", "aantal", "units"},
	"currency":       {"currency", "wahrung", "devise", "moneda", "valuta", "moeda", "currency code"},
	"description":    {"description", "details", "beschreibung", "descripcion", "descrizione", "descricao", "omschrijving", "body", "body html"},
	"date":           {"date", "datum", "fecha", "data", "transaction date", "order date", "created date", "created at", "buchungstag", "buchungsdatum"},
	"id":             {"id", "identifier", "record id", "customer id", "external id", "uuid", "kennung"},
	"sku":            {"sku", "product code", "item code", "article number", "artikelnummer", "item number", "product id"},
	"product name":   {"product name", "product", "item", "item name", "artikel", "produit", "producto", "prodotto", "produto", "product title", "produkt", "lineitem name", "line item name"},
	"status":         {"status", "state status", "stage", "zustand", "estado status", "stato", "statut"},
	"department":     {"department", "dept", "abteilung", "departement", "departamento", "reparto", "afdeling", "team"},
	"manager":        {"manager", "supervisor", "reports to", "vorgesetzter", "responsable", "gerente"},
	"salary":         {"salary", "compensation", "pay", "gehalt", "salaire", "salario", "stipendio", "salaris", "annual salary"},
	"start date":     {"start date", "hire date", "date hired", "eintrittsdatum", "date d embauche", "fecha de inicio", "data di assunzione", "employment start"},
	"gender":         {"gender", "sex", "geschlecht", "genre", "genero", "sesso", "geslacht"},
	"account number": {"account number", "account", "kontonummer", "iban", "account no", "numero de compte", "numero de cuenta"},
	"invoice number": {"invoice number", "invoice", "invoice id", "rechnungsnummer", "numero de facture", "numero de factura", "factuurnummer"},
	"tax":            {"tax", "vat", "mwst", "steuer", "tva", "iva", "btw", "sales tax", "ust"},
	"order number":   {"order number", "order id", "order", "bestellnummer", "numero de commande", "numero de pedido", "ordernummer"},
}

var canonical = func() map[string]string {
	m := map[string]string{}
	for c, names := range synonyms {
		for _, n := range names {
			m[strings.Join(tokens(Normalize(n)), " ")] = c
		}
		m[strings.Join(tokens(Normalize(c)), " ")] = c
	}
	return m
}()

// squashed keys the dictionary by names without spaces, so "MwSt" (split as camelCase) still
// finds "mwst".
var squashed = func() map[string]string {
	m := map[string]string{}
	for c, names := range synonyms {
		for _, n := range append(names, c) {
			m[strings.ReplaceAll(Normalize(n), " ", "")] = c
		}
	}
	return m
}()

// concept is the canonical concept a name stands for, or "".
func concept(name string) string {
	if c := canonical[strings.Join(tokens(Normalize(name)), " ")]; c != "" {
		return c
	}
	return squashed[strings.ReplaceAll(Normalize(name), " ", "")]
}

// truthy and falsy spellings map enum-like yes/no values in several languages.
var truthy = map[string]bool{"yes": true, "y": true, "true": true, "1": true, "ja": true, "oui": true, "si": true, "sim": true, "x": true, "on": true, "active": true}
var falsy = map[string]bool{"no": true, "n": true, "false": true, "0": true, "nein": true, "non": true, "nao": true, "nee": true, "off": true, "inactive": true}
