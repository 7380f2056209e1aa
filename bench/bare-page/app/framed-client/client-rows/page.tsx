/** The sortable client table inside the client-drawn floor of a signed-in frame (../layout.tsx). */
export { default } from '../../framed/client-rows/page';
