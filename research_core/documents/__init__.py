"""Reading the user's documents (PDF, Word, PowerPoint, Excel, CSV) into located text segments."""
