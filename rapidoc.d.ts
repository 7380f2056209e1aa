/** RapiDoc ships no types: importing it only defines the `<rapi-doc>` element (components/developers/rapi-doc.tsx). */
declare module 'rapidoc';
