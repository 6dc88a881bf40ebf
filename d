--- a.txt ---




--- End of content ---
