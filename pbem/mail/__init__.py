"""Mail: inbound SMTP, MIME parsing, quote stripping, commands, pipeline, outbound."""
