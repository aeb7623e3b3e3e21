"""API views, one module per entity; one APIView class per URL, one method per operation."""
