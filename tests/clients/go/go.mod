module example.invalid/saboteur/bot

go 1.19

require example.invalid/saboteur/client v0.0.0

require gopkg.in/validator.v2 v2.0.1 // indirect

// The client generated from the spec, and the one library it uses (Debian's
// golang-gopkg-validator.v2-dev): both are put here by run.sh, never fetched.
replace (
	example.invalid/saboteur/client => ./generated
	gopkg.in/validator.v2 => ./validator
)
