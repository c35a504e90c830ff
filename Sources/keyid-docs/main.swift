// Placeholder: renders the manual page and completions (to be written).
