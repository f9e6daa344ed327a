"""What the kit reads as data: cases, programs, languages, assignments, rule maps, variants."""
