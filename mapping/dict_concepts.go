package mapping

// conceptText lists the meanings the engine knows as single terms, one per line:
// `id: phrase | phrase …`. Phrases are English (other languages are translated word by word
// first, see lexicon*.go) and match a run of words in any order, so "code postal" and
// "date of birth" need no entries of their own once their words are translated. A concept is
// atomic: "Last Activity" shares nothing with "Last Name" (concept last_name).
const conceptText = `
first_name: first name | given name | forename | christian name | first
last_name: last name | surname | family name | second name | last
full_name: full name | contact name | person name | complete name
middle_name: middle name | additional name | middle initial | name infix
email: email | email address | mail | mail address | electronic mail | email id
phone: phone | phone number | telephone | telephone number | landline | phone no | contact number | tel number
mobile: mobile | mobile phone | mobile number | cell | cell phone | cellphone | mobile phone number | cell number
fax: fax | fax number | telefax
company: company | company name | organization | organization name | firm | business name | employer | organisation
job_title: job title | position | role | designation | business title | job | function | occupation | job position | work title | job role
salutation: salutation | honorific | form address | courtesy title
street: street | street address | address line 1 | address 1 | street 1 | road | street name | line 1 | street line 1
address_line2: address line 2 | address 2 | street 2 | line 2 | apartment | suite | street line 2 | address supplement | address continued
house_number: house number | street number | building number
city: city | town | locality | municipality | town city | place residence | city town
state: state | province | region | county | state province | state region | federal state | county state | state county | province region | district
postal_code: postal code | zip | zip code | postcode | post code | zipcode | postal | postal zip code | zip postal code
country: country | nation | country region | country code | country name | iso country
website: website | web site | url | homepage | home page | web | web address | internet address | website url | web page | site web
domain: domain | domain name | website domain | company domain | web domain
date_of_birth: date birth | birth date | birthdate | birthday | dob | born | born on | day birth
gender: gender | sex
language: language | preferred language | locale | spoken language
nationality: nationality | citizenship
marital_status: marital status | civil status | family status
notes: notes | note | comment | comments | remark | remarks | annotation | observation | observations | message | buyer message | customer message | delivery message
description: description | details | long description | body | detail | item description text | additional description | text
owner: owner | assigned | assigned to | sales rep | rep | salesperson | account manager | responsible person | record owner
created_at: created | created date | creation date | created at | date created | created on | create date | signup date | sign up date | registration date | date added | added on | signup
updated_at: updated | last modified | modified | modified date | updated at | last updated | modstamp | system modstamp | changed | last changed | date modified | last modified date
last_activity: last activity | last activity date | last seen | last contacted | last contact | last login | last visit
record_id: id | record id | identifier | uuid | guid | object id | row id | internal id | system id | key
lead_source: lead source | source | original source | lead origin | origin | acquisition channel | source channel
lifecycle_stage: lifecycle stage | lifecycle | life cycle stage | funnel stage | stage funnel | customer stage | lead stage
email_opt_out: email opt out | opt out | opted out | opted out email | unsubscribed | unsubscribe | do not email | email unsubscribed | newsletter unsubscribed | unsubscribed newsletter | newsletter opt out
order_number: order number | order no | order id | order reference | order name | purchase order id
order_date: order date | purchase date | date ordered | order created | ordered date | order time | date order
po_number: po number | purchase order | purchase order number | po | customer po | po no | po reference | customer order number
sku: sku | stock keeping unit | item number | article number | product number | part number | item code | product code | product id | article code | variant sku
barcode: barcode | bar code | gtin | ean | upc | isbn | jan | ean code | gtin upc ean isbn
product_name: product name | item name | product | article name | product description | lineitem name | item title | offer name | offer title
unit_price: unit price | price per unit | price each | item price | unit cost price | price per item | single price
cost: cost | cost per item | unit cost | purchase price | cost price | buying price | cost item
compare_at_price: compare at price | compare price | rrp | msrp | list price | original price | recommended retail price
stock: stock | inventory | inventory quantity | quantity on hand | on hand | stock quantity | stock level | available quantity | inventory qty | in stock quantity | quantity stock
quantity: quantity | qty | units | pieces | number units | amount units | quantity purchased | ordered quantity
weight: weight | gram | grams | mass | kg | weight kg | net weight
image_url: image | image url | image src | picture | photo | image link | main image | images | image source | photo url | external image url | image external url
tags: tags | tag | keywords | keyword | labels
vendor: vendor | brand | manufacturer | make | brands | vendor brand | brand name
category: category | categories | product type | product category | product group | department store category
color: color | colour
size: size | clothing size
shipping_cost: shipping cost | shipping price | shipping amount | shipping fee | delivery cost | shipping charge | delivery fee | shipping costs | delivery charge
discount: discount | discount amount | rebate | markdown | reduction
subtotal: subtotal | sub total | line total | items total | merchandise total
tax: tax | taxes | tax amount | vat | sales tax | vat amount | item tax | tax total | total tax
tax_rate: tax rate | vat rate | tax percent | vat percent | tax percentage | rate tax
total: total | grand total | total amount | total price | order total | total due | invoice total | sum total | invoiced amount | amount invoiced | amount due | amount payable | payable amount
currency: currency | currency code | iso currency | currency iso
payment_method: payment method | payment type | payment gateway | pay method | payment mode | method payment | payment means | payment option
payment_status: payment status | financial status | paid status | payment state
fulfillment_status: fulfillment status | fulfillment | shipping status | delivery status | shipment status | dispatch status
payment_terms: payment terms | terms | terms payment | payment conditions | payment condition | credit terms | payment term | conditions payment
employee_id: employee id | employee number | personnel number | staff number | staff id | worker id | employee no | employee code | employee
department: department | dept | division department | organizational unit | org unit | supervisory organization | team department | business unit
manager: manager | supervisor | reports to | reporting to | line manager | direct manager | boss | superior | direct supervisor | manager name
hire_date: hire date | date hire | start date | joining date | date joined | employment start | entry date | hiring date | original hire date | start employment | date entry | join date | employment date
termination_date: termination date | end date | exit date | leaving date | last day | separation date | date termination | leave date | date exit | employment end
employment_type: employment type | contract type | time type | worker type | type employment | type contract | working time type | job type | employment contract | contract | working time
salary: salary | annual salary | base salary | base pay | pay | pay rate | compensation | wage | wages | annual pay | gross salary | yearly salary | annual gross salary | total base pay | remuneration
location: location | work location | office | site | branch | workplace | office location | work site | place work | establishment
national_id: national id | ssn | social security number | social security | national insurance number | national insurance | national identifier | identity number | id number | personal id | tax id person | citizen service number | identity card | personal identification number
iban: iban | bank account | iban number | bank account number | account iban
bic: bic | swift | swift code | bic code | bic swift
booking_date: booking date | posting date | transaction date | date posted | booked date | entry date booking | post date | date booking | date transaction | accounting date | book date | posted date | date posting | registration date accounting
value_date: value date | valuta date | effective date | date value
balance: balance | running balance | balance after | account balance | closing balance | balance after transaction | new balance
counterparty: counterparty | payee | payer | beneficiary | recipient | sender | payee payer | payer payee | counter party | beneficiary payer | remitter | other party | merchant
amount: amount | sum | value amount | transaction amount | betrag amount | amount company currency
reference: reference | ref | end end reference | end end | end end id | reference number | transaction reference | remittance information | reference text | customer reference
transaction_type: transaction type | debit credit | credit debit | dr cr | debit credit indicator | type transaction | credit debit indicator | debit credit flag
invoice_number: invoice number | invoice no | invoice id | inv no | bill number | invoice reference
invoice_date: invoice date | date invoice | billing date | bill date | invoiced date | issue date | date issue
due_date: due date | payment due | due | date due | payment due date | due on | maturity date | payable by
service_date: service date | delivery date | performance date | date service
vat_id: vat id | vat number | tax id | tax number | vat registration number | vat no | tax registration number | vat reg number | tax identification number | vat code
net_amount: net amount | net | amount net | net total | net value | total net | net price | amount before tax | before tax | excluding tax | pre tax amount
gross_amount: gross amount | gross | amount gross | gross total | total gross
account_number: account number | account code | account no | gl account | general ledger account | ledger account
account_name: account name | account description | account title | gl account name | ledger account name
debit: debit | debit amount | dr | amount debit
credit: credit | credit amount | cr | amount credit
journal_entry: journal entry | journal | journal number | je | journal entry number | entry number | voucher number | voucher | journal id | posting number | booking number | transaction number journal
cost_center: cost center | cost centre | cost center code | profit center
document_number: document number | document no | doc number | document | document reference | receipt number | source document | document id
fiscal_period: fiscal period | period | accounting period | posting period | fiscal year | financial period | period year
offset_account: offset account | contra account | counter account | balancing account
tax_code: tax code | vat code key | tax key
deal_name: deal name | opportunity name | deal title | deal | opportunity
close_date: close date | expected close date | closing date | close
stage: stage | deal stage | sales stage | pipeline stage
probability: probability | win probability | probability percent | likelihood | chance
next_step: next step | next action | next steps
industry: industry | sector | line business | vertical | branch industry
employee_count: number employee | employees | employee count | headcount | staff count | number staff | workforce | size workforce | company size
annual_revenue: annual revenue | revenue | turnover | annual turnover | annual sales | yearly revenue | sales revenue
account_type: account type | type account | customer type | relationship type
timezone: timezone | time zone | tz | gmt offset | utc offset
ticket_id: ticket id | ticket number | ticket no | issue key | issue id | case number | case id | incident number | request id | request number | ticket
subject: subject | summary | topic | ticket subject | issue summary | headline | subject line
priority: priority | urgency | severity | priority level
bedrooms: bedrooms | beds | bedroom | number bedrooms | bedroom count | bed
bathrooms: bathrooms | baths | bathroom | number bathrooms | bathroom count | bath
living_area: living area | floor area | square feet | sqft | sq ft | square meters | square metres | sqm | living space | floor space | surface area
transaction_id: transaction id | transaction number | txn id | payment id | transaction ref | txn
listing_id: listing id | listing number | property id | property number | ad id | ad number | listing reference | property reference | mls number | mls
property_type: property type | home type | dwelling type | type property | building type | type building | type home | listing type
year_built: year built | built year | construction year | year construction | build year | year completed | completion year
assignee: assignee | assigned agent | assigned person | agent | handler | person charge
`

// relatedText lists terms that mean nearly the same, with how much a match between them is
// worth: `a ~ b weight`.
const relatedText = `
name ~ title 0.7
name ~ full_name 0.6
company ~ account 0.7
customer ~ account 0.75
company ~ account_name 0.8
account ~ account_number 0.7
account ~ account_name 0.7
customer ~ billing 0.5
created_at ~ order_date 0.7
active ~ status 0.7
street ~ address 0.85
address_line2 ~ address 0.6
house_number ~ address 0.5
phone ~ mobile 0.7
phone ~ fax 0.4
email ~ mail 0.9
website ~ domain 0.85
website ~ url 0.9
image_url ~ url 0.5
state ~ region 0.9
location ~ city 0.6
location ~ office 0.9
description ~ notes 0.6
description ~ memo 0.8
notes ~ memo 0.8
description ~ name 0.45
product_name ~ title 0.8
product_name ~ item 0.75
product_name ~ name 0.6
product_name ~ description 0.5
deal_name ~ name 0.7
deal_name ~ title 0.7
sku ~ reference 0.75
sku ~ id 0.4
order_number ~ name 0.3
order_number ~ number 0.6
invoice_number ~ number 0.6
journal_entry ~ number 0.5
document_number ~ reference 0.85
reference ~ number 0.4
total ~ gross_amount 0.85
total ~ amount 0.75
net_amount ~ subtotal 0.85
tax ~ tax_amount 1
tax ~ vat 1
amount ~ value 0.7
amount ~ total 0.75
price ~ unit_price 0.8
price ~ cost 0.4
cost ~ unit_price 0.4
stock ~ quantity 0.75
count ~ quantity 0.7
created_at ~ date 0.4
hire_date ~ date 0.4
booking_date ~ date 0.6
posting ~ booking 1
fulfillment ~ shipping 0.7
delivery ~ shipping 0.95
fulfillment_status ~ status 0.6
payment_status ~ status 0.8
payment_status ~ financial 0.8
employment_type ~ type 0.6
employment_type ~ status 0.45
contract ~ employment 0.8
status ~ state 0.5
transaction_type ~ type 0.6
account_type ~ type 0.7
category ~ type 0.5
counterparty ~ name 0.4
counterparty ~ customer 0.5
customer ~ client 1
customer ~ buyer 0.9
owner ~ manager 0.6
manager ~ owner 0.6
work ~ business 0.8
work ~ office 0.7
iban ~ account_number 0.7
iban ~ account 0.6
national_id ~ id 0.4
employee_id ~ id 0.6
employee_id ~ number 0.4
department ~ division 0.6
department ~ team 0.7
salary ~ amount 0.3
po_number ~ order_number 0.7
po_number ~ order 0.6
due_date ~ date 0.4
invoice_date ~ date 0.6
order_date ~ date 0.6
close_date ~ date 0.5
value_date ~ date 0.3
vendor ~ supplier 0.6
line ~ item 0.8
ticket_id ~ id 0.5
ticket_id ~ number 0.4
subject ~ title 0.8
transaction_id ~ order_number 0.75
transaction_id ~ reference 0.8
transaction_id ~ id 0.5
living_area ~ size 0.5
assignee ~ owner 0.8
listing_id ~ id 0.5
`

// termWeightText gives words that carry little meaning on their own a lower weight, so
// "Phone 1 - Value" is about the phone and "Primary Work Email" about the work e-mail.
const termWeightText = `
value 0.15
primary 0.2
main 0.25
legal 0.2
original 0.3
default 0.3
regular 0.25
standard 0.3
actual 0.3
current 0.3
total 0.6
name 0.35
number 0.35
no 0.35
code 0.4
type 0.45
status 0.5
date 0.5
time 0.5
data 0.2
info 0.2
information 0.2
field 0.1
column 0.1
unnamed 0.1
text 0.3
details 0.5
item 0.5
line 0.3
lineitem 0.3
variant 0.3
per 0.3
each 0.3
amount 0.6
rate 0.6
own 0.3
my 0.2
new 0.3
mailing 0.6
record 0.5
contact 0.5
deal 0.6
percent 0.4
has 0.1
is 0.1
`

// stopText lists words dropped before matching, in every supported language.
const stopText = `the of a an and or for to in on at by with from as into is are was has have be
de la le les du des d l un une et ou au aux en sur par pour avec dans
el los las del y o al con para por su sus lo una
di da dei degli della delle dello il gli e ed dal nel nella con su
do dos das na nas ao aos em pelo pela um uma
der die das den dem und oder von vom zum zur am im an auf mit fur bei ist
het een van voor op te met aan naar
va cua dan ve i oraz och の 的 및 의 และ ใน ทำการ
`
